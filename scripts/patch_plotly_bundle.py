"""Lets the 3D scene of plotly.js bundles (scripts/build_plotly_bundle.sh) idle, link fewer
WebGL programs (:func:`shader_programs`), draw its texts on a smaller canvas
(:func:`text_canvas`), draw no frame while it is made (:func:`first_frame`), not turn to the
z up it already has (:func:`turntable_settled`) and draw no picking pass before a pointer comes
(:func:`lazy_pick`).

gl-plot3d (plotly.js's 3D scene) runs ``requestAnimationFrame`` forever: every frame it checks
the canvas's size, ticks the camera, recomputes the scene's bounds and returns when nothing
changed. A landscape page left alone asked for 60 frames a second: 0.2-0.3 s of the browser's
CPU every 3 s of idle (bench/idle_cpu.py). The patched loop runs while the scene changes and
:data:`GRACE_MS` after: a frame is busy when it draws (the scene was dirty) or the camera's
matrix moved (a drag, a zoom, the turntable's 500 ms turn to "up" when the mode is set). It
starts again on what can change the scene: the scene's own methods (``redraw``, ``update``,
``add``, ``remove``, ``setAspectratio``, ``setBounds``, ``setClearColor``: Plotly calls them on
every plot, relayout, camera reset and resize), a mouse or touch event on the canvas or the
camera's element (rotation, zoom, pan, hover picking) and the window's ``resize``. Waking, it
first brings the camera's clock up to date (``view.idle``, as every frame did): its wheel zoom
scales with the time since the camera's last frame. What a frame draws is unchanged; idle
frames did nothing but look.

    .venv/bin/python scripts/patch_plotly_bundle.py assets/plotly-gl3d.min.js ...

Each file must hold each patched piece of code once (or be patched already): a plotly.js
upgrade that changes them fails here, not silently.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: How long the loop keeps running after its last busy frame or wake-up (ms).
GRACE_MS = 500

#: gl-plot3d's loop, its ``redraw`` and the end of ``createScene``, as minified:
#: ``function se(){ee._stopped||ee.contextLost||(Te(),requestAnimationFrame(se))}
#: return ee.enableMouseListeners(),se(),ee.redraw=function(){ee._stopped||(j=!0,Te())},ee}``
LOOP = re.compile(
    r"function (?P<loop>[\w$]+)\(\)\{(?P<scene>[\w$]+)\._stopped\|\|(?P=scene)\.contextLost\|\|"
    r"\((?P<frame>[\w$]+)\(\),requestAnimationFrame\((?P=loop)\)\)\}"
    r"return (?P=scene)\.enableMouseListeners\(\),(?P=loop)\(\),"
    r"(?P=scene)\.redraw=function\(\)\{(?P=scene)\._stopped\|\|\((?P<dirty>[\w$]+)=!0,"
    r"(?P=frame)\(\)\)\},(?P=scene)\}"
)

#: Marks a patched bundle.
MARK = "__diIdleWake"


def scene_listeners(events: tuple[str, ...], handler: str) -> str:
    """Code adding ``handler`` for ``events`` on the scene's canvas and on its camera's element
    (``$scene``: the scene's name, to fill in), in the capture phase: before the scene's own
    handlers."""
    names = ",".join(f'"{event}"' for event in events)
    return (
        "[$scene.camera&&$scene.camera.element,$scene.canvas].forEach(function(__diEl){__diEl&&"
        f"[{names}].forEach(function(__diN){{__diEl.addEventListener(__diN,{handler},"
        "{passive:!0,capture:!0})})}),"
    )


def _fill(code: str, names: dict[str, str]) -> str:
    """``code`` with each ``$name`` replaced by its minified name in ``names``."""
    for name, value in names.items():
        code = code.replace("$" + name, value)
    return code


#: The input on the scene that wakes the loop.
WAKE_EVENTS = (
    "mousedown",
    "mousemove",
    "mouseup",
    "mouseleave",
    "wheel",
    "touchstart",
    "touchmove",
    "touchend",
)

#: The loop that idles; ``LOOP``'s names go in for ``$loop``, ``$scene``, ``$frame``, ``$dirty``.
IDLE_LOOP = (
    """\
function $loop(){if($scene._stopped||$scene.contextLost){__diLooping=!1;return}\
var __diWas=$scene.camera.matrix.slice(),__diBusy=$dirty;$frame();var __diM=$scene.camera.matrix;\
for(var __diI=0;__diI<16&&!__diBusy;++__diI)__diBusy=__diM[__diI]!==__diWas[__diI];\
var __diNow=performance.now();__diBusy&&(__diUntil=__diNow+$grace);\
__diNow<__diUntil?requestAnimationFrame($loop):__diLooping=!1}\
var __diUntil=0,__diLooping=!0;\
function __diIdleWake(){var __diNow=performance.now(),__diC=$scene.camera;\
__diUntil=Math.max(__diUntil,__diNow+$grace);\
__diLooping||$scene._stopped||$scene.contextLost||(__diC&&__diC.view&&\
__diC.view.idle(__diNow-(__diC.delay||16)),__diLooping=!0,requestAnimationFrame($loop))}\
return $scene.enableMouseListeners(),$loop(),\
$scene.redraw=function(){$scene._stopped||($dirty=!0,$frame())},\
["redraw","update","add","remove","setAspectratio","setBounds","setClearColor"].forEach(\
function(__diK){var __diF=$scene[__diK];$scene[__diK]=function(){\
var __diR=__diF.apply(this,arguments);return __diIdleWake(),__diR}}),\
"""
    + scene_listeners(WAKE_EVENTS, "__diIdleWake")
    + """\
window.addEventListener("resize",__diIdleWake),\
function(__diD){$scene.dispose=function(){window.removeEventListener("resize",__diIdleWake);\
return __diD.apply(this,arguments)}}($scene.dispose),$scene}"""
)


def idle_loop(bundle: str) -> str:
    """``bundle`` with gl-plot3d's loop replaced by :data:`IDLE_LOOP` (unchanged when patched
    already); ValueError when the loop is not there exactly once."""
    if MARK in bundle:
        return bundle
    found = list(LOOP.finditer(bundle))
    if len(found) != 1:
        raise ValueError(f"gl-plot3d's render loop found {len(found)} times, not once")
    code = _fill(IDLE_LOOP.replace("$grace", str(GRACE_MS)), found[0].groupdict())
    return bundle[: found[0].start()] + code + bundle[found[0].end() :]


#: gl-shader's ``update``: the program it links only to read the shaders' uniforms and
#: attributes (then deletes), as minified (the end of an ``if`` condition, then its body).
REFLECTION = re.compile(
    r",!(?P<uniforms>[\w$]+)\|\|!(?P<attributes>[\w$]+)\)\{"
    r"var (?P<probe>[\w$]+)=(?P<gl>[\w$]+)\.createProgram\(\);"
    r"(?P<link>if\((?P=gl)\.attachShader\((?P=probe),(?P<shader>[\w$]+)\.fragShader\),"
    r"(?P=gl)\.attachShader\((?P=probe),(?P=shader)\.vertShader\),(?P=gl)\.linkProgram\((?P=probe)\),"
    r"!(?P=gl)\.getProgramParameter\((?P=probe),(?P=gl)\.LINK_STATUS\)\)\{[^}]*\})"
    r"(?P=uniforms)=(?P=uniforms)\|\|(?P<reflect>[\w$]+)\.uniforms\((?P=gl),(?P=probe)\),"
    r"(?P=attributes)=(?P=attributes)\|\|(?P=reflect)\.attributes\((?P=gl),(?P=probe)\),"
    r"(?P=gl)\.deleteProgram\((?P=probe)\)\}"
)

#: The same, reading each pair of shaders once per WebGL context (keyed by gl-shader's ids of
#: the compiled shaders, which its cache never gives again), and linking no probe when the
#: attributes are given: the uniforms are then read from the program drawn with
#: (:data:`LAZY_LINK`).
REFLECTED_ONCE = """\
,!$uniforms||!$attributes){var __diKey=$shader._vref.id+"@"+$shader._fref.id,\
__diSeen=($gl.__diReflected=$gl.__diReflected||{})[__diKey];\
if(!__diSeen&&!$attributes){var $probe=$gl.createProgram();$link\
__diSeen=$gl.__diReflected[__diKey]={u:$reflect.uniforms($gl,$probe),\
a:$reflect.attributes($gl,$probe)},$gl.deleteProgram($probe)}\
__diSeen&&($uniforms=$uniforms||__diSeen.u,$attributes=$attributes||__diSeen.a)}"""

#: gl-shader's ``update`` from its uniforms' locations to its end, as minified: ``relink``
#: (links the program with the attributes' locations, reads the uniforms' locations), called
#: at once, then the shader's ``types``, ``attributes`` and ``uniforms`` (whose wrapper sets
#: only the uniforms that have a location then).
EAGER_LINK = re.compile(
    r"var (?P<locations>[\w$]+)=new Array\((?P<uniforms>[\w$]+)\.length\);"
    r"function (?P<relink>[\w$]+)\(\)\{(?P<shader>[\w$]+)\.program=(?P<cache>[\w$]+)\.program\("
    r"(?P<gl>[\w$]+),(?P=shader)\._vref,(?P=shader)\._fref,(?P<names>[\w$]+),(?P<where>[\w$]+)\);"
    r"for\(var (?P<i>[\w$]+)=0;(?P=i)<(?P=uniforms)\.length;\+\+(?P=i)\)(?P=locations)\[(?P=i)\]="
    r"(?P=gl)\.getUniformLocation\((?P=shader)\.program,(?P=uniforms)\[(?P=i)\]\.name\)\}"
    r"(?P=relink)\(\),(?P=shader)\._relink=(?P=relink),"
    r"(?P=shader)\.types=\{uniforms:(?P<types>[\w$]+)\((?P=uniforms)\),"
    r"attributes:(?P=types)\((?P<attributes>[\w$]+)\)\},"
    r"(?P=shader)\.attributes=(?P<attributeWrapper>[\w$]+\((?P=gl),(?P=shader),[\w$]+,(?P=where)\)),"
    r"Object\.defineProperty\((?P=shader),\"uniforms\","
    r"(?P<uniformWrapper>[\w$]+)\((?P=gl),(?P=shader),(?P=uniforms),(?P=locations)\)\)\}"
)

#: The same with the program linked by the shader's first ``bind`` (``relink`` when there is
#: no program) or first use of its ``uniforms`` or ``types``, which are made then (their
#: accessors replace themselves); ``relink`` reads the uniforms from the program when no probe
#: did. ``attributes`` is made at once: gl-scatter3d sets their locations right away.
LAZY_LINK = """\
var $locations=[];function $relink(){\
$shader.program=$cache.program($gl,$shader._vref,$shader._fref,$names,$where);\
if(!$uniforms){var __diKey=$shader._vref.id+"@"+$shader._fref.id,\
__diSeen=($gl.__diReflected=$gl.__diReflected||{})[__diKey];\
__diSeen||(__diSeen=$gl.__diReflected[__diKey]={u:$reflect.uniforms($gl,$shader.program),\
a:$reflect.attributes($gl,$shader.program)}),$uniforms=__diSeen.u}\
for(var $i=0;$i<$uniforms.length;++$i)\
$locations[$i]=$gl.getUniformLocation($shader.program,$uniforms[$i].name)}\
function __diLinkNow(){$shader.program||$relink(),\
__diOwn("types",{uniforms:$types($uniforms),attributes:$types($attributes)}),\
Object.defineProperty($shader,"uniforms",$uniformWrapper($gl,$shader,$uniforms,$locations))}\
function __diOwn(__diK,__diV){Object.defineProperty($shader,__diK,\
{value:__diV,writable:!0,enumerable:!0,configurable:!0})}\
$shader.program=null,$shader._relink=$relink,$shader.attributes=$attributeWrapper,\
Object.defineProperty($shader,"types",{get:function(){return $shader._vref?\
(__diLinkNow(),$shader.types):null},set:function(__diV){__diOwn("types",__diV)},\
enumerable:!0,configurable:!0}),\
Object.defineProperty($shader,"uniforms",{get:function(){return $shader._vref?\
(__diLinkNow(),$shader.uniforms):null},set:function(__diV){__diLinkNow(),$shader.uniforms=__diV},\
enumerable:!0,configurable:!0})}"""


def _replace_once(bundle: str, pattern: re.Pattern[str], code: str, what: str) -> str:
    found = list(pattern.finditer(bundle))
    if len(found) != 1:
        raise ValueError(f"{what} found {len(found)} times, not once")
    code = _fill(code, found[0].groupdict())
    return bundle[: found[0].start()] + code + bundle[found[0].end() :]


def shader_programs(bundle: str) -> str:
    """``bundle`` with gl-shader linking fewer programs; a link waits for the GPU process
    (``getProgramParameter``). It linked a throwaway program for every shader object only to
    read its uniforms and attributes, then the program it draws with, both when the shader is
    made: the landscape page linked 64 programs. Now (:data:`REFLECTED_ONCE`) each pair of
    shaders is read once per WebGL context (the scene's point clouds: start, end, marker,
    each make the same six), and no throwaway program is linked when the attributes are given
    (the uniforms are read from the program drawn with); and (:data:`LAZY_LINK`) that program
    is linked when the shader is first used: gl-scatter3d and gl-line3d move their shaders'
    attributes right after making them, which dropped the program linked for the old
    locations, and a shader not drawn with (the point clouds' for an orthographic camera, the
    spikes shown on hover, the axes' walls when off) links none. 13 programs on the landscape
    page's first screen (with :func:`first_frame`). The programs drawn with and their uniforms
    are the same (gl-shader's cache links each set of shaders and attribute locations once)."""
    if "__diReflected" in bundle:
        return bundle
    patched = _replace_once(bundle, REFLECTION, REFLECTED_ONCE, "gl-shader's reflection link")
    reflect = next(REFLECTION.finditer(bundle))["reflect"]  # there once: _replace_once checked
    code = LAZY_LINK.replace("$reflect", reflect)
    return _replace_once(patched, EAGER_LINK, code, "gl-shader's first link")


#: vectorize-text's canvas (its module's default: every 3D tick label, axis title, marker
#: symbol and text is drawn there, then read back), as minified.
TEXT_CANVAS = re.compile(
    r"(?P<canvas>[\w$]+)\.width=8192,(?P=canvas)\.height=1024,"
    r"(?P<context>[\w$]+)=(?P=canvas)\.getContext\(\"2d\"\)"
)

#: Its height here (px): one line of text at vectorize-text's 64 px needs 208.
TEXT_CANVAS_HEIGHT = 256

#: vectorize-text making the canvas taller for more lines, which resets the context (the font
#: it had just set), then clearing all of it.
TEXT_CANVAS_GROWS = re.compile(
    r"(?P<canvas>[\w$]+)\.height<(?P<need>[\w$]+)&&\((?P=canvas)\.height=(?P=need)\),"
    r"(?P<context>[\w$]+)\.fillStyle=\"#000\",(?P=context)\.fillRect\(0,0,"
    r"(?P=canvas)\.width,(?P=canvas)\.height\)"
)

#: The same keeping the font.
TEXT_CANVAS_KEEPS_FONT = """\
$canvas.height<$need&&function(__diFont){$canvas.height=$need,$context.font=__diFont}\
($context.font),$context.fillStyle="#000",$context.fillRect(0,0,$canvas.width,$canvas.height)"""


def text_canvas(bundle: str) -> str:
    """``bundle`` with vectorize-text's canvas 8192 x :data:`TEXT_CANVAS_HEIGHT` px, not
    8192 x 1024: for every text it clears the whole canvas and reads its pixels back (the
    browser copies the whole canvas for that), 23 times on the landscape page's first screen;
    a quarter of the canvas, a quarter of the time (about 80 -> 20 ms). What it reads (the
    text's box) and so every glyph's shape is the same. Text of more lines than fit makes the
    canvas taller, as it did past 11 lines; that kept the default font, not the text's
    (:data:`TEXT_CANVAS_KEEPS_FONT`)."""
    if "__diFont" in bundle:
        return bundle
    code = f"$canvas.width=8192,$canvas.height={TEXT_CANVAS_HEIGHT},"
    bundle = _replace_once(
        bundle, TEXT_CANVAS, code + '$context=$canvas.getContext("2d")', "vectorize-text's canvas"
    )
    return _replace_once(
        bundle, TEXT_CANVAS_GROWS, TEXT_CANVAS_KEEPS_FONT, "vectorize-text's canvas growing"
    )


#: gl-plot3d's ``createScene`` sizing the canvas to its container (``resizeListener``: reads the
#: container's size, which makes the browser lay the page out), as minified.
FIRST_SIZE = re.compile(
    r"(?P<scene>[\w$]+)\.autoResize&&(?P<resize>[\w$]+)\(\),"
    r"window\.addEventListener\(\"resize\",(?P=resize)\)"
)

#: The end of ``createScene`` (as :data:`IDLE_LOOP` keeps it): the loop's first frame, at once.
FIRST_FRAME = re.compile(
    r"return (?P<scene>[\w$]+)\.enableMouseListeners\(\),(?P<loop>[\w$]+)\(\),"
    r"(?P=scene)\.redraw=function"
)

#: Marks a bundle whose scene draws its first frame when it is asked to.
FIRST_FRAME_MARK = "/*__diFirstFrame*/"


def first_frame(bundle: str) -> str:
    """``bundle`` with gl-plot3d's ``createScene`` neither sizing the canvas nor drawing a
    frame: it laid the page out to read the container's size (which Plotly's ``plot`` then
    changes: the scene's domain in px, not 100%) and drew the empty scene at that size, all
    in the task that goes on to plot (its ``redraw``), so no such frame was ever shown. The
    first frame is the one ``redraw`` draws (which sizes the canvas first), or the loop's
    next animation frame, before the next paint, if nothing asks. The landscape page laid
    itself out once less (90 ms) and drew one frame less."""
    if FIRST_FRAME_MARK in bundle:
        return bundle
    bundle = _replace_once(
        bundle, FIRST_SIZE, 'window.addEventListener("resize",$resize)', "gl-plot3d's first size"
    )
    code = "return $scene.enableMouseListeners(),requestAnimationFrame($loop)"
    code += FIRST_FRAME_MARK + ",$scene.redraw=function"
    return _replace_once(bundle, FIRST_FRAME, code, "gl-plot3d's first frame")


#: Plotly's 3D camera (``gl3d/camera.js``) setting its mode, as minified: turntable turns the
#: view from the orbit camera's "up" to z up in 500 ms ("hacky time warping stuff to generate
#: smooth animation"), from its computed up, eye and centre.
TURNTABLE = re.compile(
    r"var (?P<up>[\w$]+)=(?P<view>[\w$]+)\.computedUp\.slice\(\),"
    r"(?P<eye>[\w$]+)=(?P=view)\.computedEye\.slice\(\),"
    r"(?P<center>[\w$]+)=(?P=view)\.computedCenter\.slice\(\);"
    r"if\((?P=view)\.setMode\((?P<mode>[\w$]+)\),(?P=mode)===\"turntable\"\)\{"
    r"var (?P<t>[\w$]+)=(?P<now>[\w$]+)\(\);"
    r"(?P=view)\._active\.lookAt\((?P=t),(?P=eye),(?P=center),(?P=up)\),"
    r"(?P=view)\._active\.lookAt\((?P=t)\+500,(?P=eye),(?P=center),\[0,0,1\]\),"
    r"(?P=view)\._active\.flush\((?P=t)\)\}"
)

#: The same, with no turn when the view already has z up: when the computed up is z made
#: perpendicular to the line of sight (``z - (f.z) f`` normalised, ``f`` from the eye to the
#: centre) within 1e-9 of its cosine. The turn's ends are then one view, but the turntable's
#: angles between them are not: it drew frames a thousandth apart for 500 ms.
TURNTABLE_SETTLED = """\
var $up=$view.computedUp.slice(),$eye=$view.computedEye.slice(),\
$center=$view.computedCenter.slice();\
if($view.setMode($mode),$mode==="turntable"){var $t=$now();\
(function(__diE,__diC,__diU){var __diF=[__diC[0]-__diE[0],__diC[1]-__diE[1],__diC[2]-__diE[2]],\
__diN=Math.hypot(__diF[0],__diF[1],__diF[2])||1,__diZ=__diF[2]/__diN,\
__diW=[-__diZ*__diF[0]/__diN,-__diZ*__diF[1]/__diN,1-__diZ*__diZ],\
__diL=Math.hypot(__diW[0],__diW[1],__diW[2])*(Math.hypot(__diU[0],__diU[1],__diU[2])||1);\
return __diL>1e-6&&(__diW[0]*__diU[0]+__diW[1]*__diU[1]+__diW[2]*__diU[2])/__diL>1-1e-9})\
($eye,$center,$up)?$view._active.lookAt($t,$eye,$center,[0,0,1]):\
($view._active.lookAt($t,$eye,$center,$up),$view._active.lookAt($t+500,$eye,$center,[0,0,1])),\
$view._active.flush($t)}"""


def turntable_settled(bundle: str) -> str:
    """``bundle`` with Plotly's camera turning to z up only when its view has another up
    (:data:`TURNTABLE_SETTLED`). Plotly makes every scene's camera in orbit mode, then sets
    turntable (the landscape's drag mode) with z up: the view is already the one the turn
    ends at, yet its angles moved by about 1e-3 for 500 ms, and the landscape page drew its
    scene three times at load, not once (a frame is 150-500 ms of CPU in SwiftShader). A
    user's change from orbit to turntable with the scene tilted still turns."""
    if "__diZ" in bundle:
        return bundle
    return _replace_once(bundle, TURNTABLE, TURNTABLE_SETTLED, "the camera's turn to turntable")


#: gl-plot3d's frame drawing its picking pass when the scene changed (``Q&&(Q=!1,we())``), as
#: minified: the flag, the pass and the scene.
PICK_IN_FRAME = re.compile(
    r"(?P<dirty>[\w$]+)&&\((?P=dirty)=!1,(?P<pick>[\w$]+)\(\)\),(?P<scene>[\w$]+)\.axesPixels="
)

#: gl-plot3d's picking pass: each picking buffer (gl-select-static) drawn by the objects, with
#: the frame's camera parameters.
PICK_PASS = re.compile(
    r"function (?P<pick>[\w$]+)\(\)\{if\(![\w$]+\(\)\)\{[^}]*?"
    r"for\(var [\w$]+=[\w$]+\.length,[\w$]+=(?P<buffers>[\w$]+)\.length,[^}]*?"
    r"\.drawPick\((?P<params>[\w$]+)\)\)\}"
)

#: Where :data:`IDLE_LOOP` starts: the picking switch goes before it, its listeners before the
#: window's ``resize`` one.
IDLE_WAKE = "function __diIdleWake(){"
RESIZE_WAKE = 'window.addEventListener("resize",__diIdleWake),'

#: Picking on at the first pointer on the scene: the pass the frames skipped is drawn then, and
#: its buffers read at once (gl-select-static reads them a timeout later), so that the pointer
#: that turned it on already finds what it is over.
PICK_SWITCH = """\
var __diPickOn=!1;function __diPickWake(){__diPickOn||(__diPickOn=!0,\
$dirty&&$params.view&&($dirty=!1,$pick(),$buffers.forEach(function(__diS){\
__diS._readTimeout&&(clearTimeout(__diS._readTimeout),__diS._readCallback())})))}"""

#: The pointer events that turn picking on (hover and click read the picking buffers).
PICK_LISTENERS = scene_listeners(("mousemove", "mousedown", "touchstart"), "__diPickWake")


def lazy_pick(bundle: str) -> str:
    """``bundle`` with gl-plot3d's picking pass drawn from the first pointer on the scene on,
    not at its first frame: the pass draws every object again into picking buffers, with
    shaders of their own, then reads the buffers back, only for hover and click. At the
    landscape page's load no pointer is there: 0.15 s less of the GPU process's CPU
    (SwiftShader). The first pointer event draws the pass and reads it before the scene's
    mouse handler looks (:data:`PICK_SWITCH`); from then on each changed frame draws it, as
    before. Needs :func:`idle_loop` first."""
    if "__diPickOn" in bundle:
        return bundle
    if IDLE_WAKE not in bundle or RESIZE_WAKE not in bundle:
        raise ValueError("the idle loop is not there: patch it first")
    passes = list(PICK_PASS.finditer(bundle))
    if len(passes) != 1:
        raise ValueError(f"gl-plot3d's picking pass found {len(passes)} times, not once")
    frame = "$dirty&&__diPickOn&&($dirty=!1,$pick()),$scene.axesPixels="
    patched = _replace_once(bundle, PICK_IN_FRAME, frame, "gl-plot3d's picking in a frame")
    names = next(PICK_IN_FRAME.finditer(bundle)).groupdict() | passes[0].groupdict()
    patched = patched.replace(IDLE_WAKE, _fill(PICK_SWITCH, names) + IDLE_WAKE, 1)
    return patched.replace(RESIZE_WAKE, _fill(PICK_LISTENERS, names) + RESIZE_WAKE, 1)


def main(paths: list[str]) -> None:
    for path in map(Path, paths):
        text = shader_programs(idle_loop(path.read_text(encoding="utf-8")))
        text = turntable_settled(first_frame(text_canvas(text)))
        text = lazy_pick(text)
        path.write_text(text, encoding="utf-8")
        print(f"patched {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
