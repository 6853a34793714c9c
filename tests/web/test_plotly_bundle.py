"""assets/plotly-dash-insight.min.js (scripts/build_plotly_bundle.sh): the plotly.js version of
the plotly package, with every trace type the code draws."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.basedatatypes import BaseTraceType
from plotly.offline import get_plotlyjs_version

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "assets" / "plotly-dash-insight.min.js"
#: The same without the WebGL traces, for the pages that draw none (web/page_bundles.py).
CARTESIAN = ROOT / "assets" / "plotly-cartesian.min.js"
#: Contours and the 3D scene only, for the loss landscape page.
GL3D = ROOT / "assets" / "plotly-gl3d.min.js"
HEADER = re.compile(
    r"plotly\.js v(?P<version>[\d.]+) .*?traces: (?P<traces>[a-z0-9 ]+) \*/", re.DOTALL
)
#: Trace types written as ``go.Bar(`` or ``"type": "bar"`` (Python) / ``type: "bar"`` (JS).
TRACE_USE = re.compile(r"go\.([A-Z][A-Za-z0-9]*)\(|[\"']?type[\"']?\s*[:=]\s*[\"']([a-z0-9]+)[\"']")


def plotly_trace_types() -> set[str]:
    return {
        name.lower()
        for name in dir(go)
        if isinstance(getattr(go, name), type) and issubclass(getattr(go, name), BaseTraceType)
    }


def traces_used(sources: list[Path]) -> set[str]:
    """Every plotly trace type named in ``sources``."""
    known = plotly_trace_types()
    found = set()
    for source in sources:
        for figure_class, type_name in TRACE_USE.findall(source.read_text(encoding="utf-8")):
            name = (figure_class or type_name).lower()
            if name in known:
                found.add(name)
    return found


def bundle_header(bundle: Path = BUNDLE) -> re.Match[str]:
    with bundle.open(encoding="utf-8") as handle:
        match = HEADER.search(handle.read(400))
    assert match, f"{bundle} has no header naming its version and traces"
    return match


def test_the_bundle_is_the_plotly_packages_version() -> None:
    for bundle in (BUNDLE, CARTESIAN, GL3D):
        assert bundle_header(bundle)["version"] == get_plotlyjs_version(), (
            "plotly was upgraded: run ./scripts/build_plotly_bundle.sh"
        )


def test_the_cartesian_bundle_is_the_bundle_without_webgl_traces() -> None:
    every = set(bundle_header()["traces"].split())
    cartesian = set(bundle_header(CARTESIAN)["traces"].split())
    assert cartesian == every - {"scattergl", "scatter3d", "surface"}


def test_the_gl3d_bundle_draws_every_trace_of_the_landscape_page() -> None:
    landscape = ROOT / "dash_insight" / "plugins" / "landscape"
    used = traces_used([landscape / "page.py", landscape / "figures.py"])
    assert {"surface", "scatter3d", "contour", "scatter"} <= used
    assert used <= set(bundle_header(GL3D)["traces"].split())


def test_the_bundle_has_every_trace_type_the_code_draws() -> None:
    sources = [*(ROOT / "dash_insight").rglob("*.py"), *(ROOT / "assets").glob("*.js")]
    sources = [path for path in sources if path not in (BUNDLE, CARTESIAN, GL3D)]
    used = traces_used(sources)
    assert {"scatter", "bar", "pie", "surface"} <= used  # the scan finds them
    missing = used - set(bundle_header()["traces"].split())
    assert not missing, f"add {sorted(missing)} to TRACES in scripts/build_plotly_bundle.sh"


def test_the_scan_finds_both_spellings(tmp_path: Path) -> None:
    source = tmp_path / "figure.py"
    source.write_text('go.Heatmap(z=z)\ntrace = {"type": "violin"}\nfield = {"type": "text"}\n')
    script = tmp_path / "chart.js"
    script.write_text("Plotly.react(el, [{type: 'funnel', x}]);\n")
    assert traces_used([source, script]) == {"heatmap", "violin", "funnel"}


def patch_script() -> ModuleType:
    """``scripts/patch_plotly_bundle.py`` as a module."""
    path = ROOT / "scripts" / "patch_plotly_bundle.py"
    spec = importlib.util.spec_from_file_location("patch_plotly_bundle", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: gl-plot3d's loop as a build writes it (the end of ``createScene``), names as minified.
LOOP = (
    "function se(){ee._stopped||ee.contextLost||(Te(),requestAnimationFrame(se))}"
    "return ee.enableMouseListeners(),se(),ee.redraw=function(){ee._stopped||(j=!0,Te())},ee}"
)


def test_the_3d_builds_have_the_idle_scene_loop() -> None:
    """The two builds with the 3D scene are patched (scripts/build_plotly_bundle.sh runs
    scripts/patch_plotly_bundle.py); the cartesian one has no scene."""
    patch = patch_script()
    for bundle in (BUNDLE, GL3D):
        text = bundle.read_text(encoding="utf-8")
        assert patch.MARK in text and not patch.LOOP.search(text), bundle
        assert "__diReflected" in text and not patch.REFLECTION.search(text), bundle
        assert "__diFont" in text and not patch.TEXT_CANVAS.search(text), bundle
        assert patch.FIRST_FRAME_MARK in text and not patch.FIRST_SIZE.search(text), bundle
        assert "__diZ" in text and not patch.TURNTABLE.search(text), bundle
        assert "__diPickWake" in text and not patch.PICK_IN_FRAME.search(text), bundle
    assert patch.MARK not in CARTESIAN.read_text(encoding="utf-8")


def test_the_patch_keeps_the_loops_names_and_is_done_once() -> None:
    patch = patch_script()
    patched = patch.idle_loop("a;" + LOOP + "b")
    assert patched.startswith("a;function se(){") and patched.endswith(",ee}b")
    assert "requestAnimationFrame(se)" in patched and "j=!0,Te()" in patched
    assert "$" not in patched  # every name went in
    assert patch.idle_loop(patched) == patched
    with pytest.raises(ValueError, match="found 0 times"):
        patch.idle_loop("no loop here")
    with pytest.raises(ValueError, match="found 2 times"):
        patch.idle_loop(LOOP + LOOP)


#: gl-shader's reflection link as a build writes it (in its ``update``), names as minified.
REFLECTION = (
    "d.fragShader=d._fref.shader,!S||!x){var A=w.createProgram();if(w.attachShader(A,"
    "d.fragShader),w.attachShader(A,d.vertShader),w.linkProgram(A),!w.getProgramParameter(A,"
    'w.LINK_STATUS)){var g=w.getProgramInfoLog(A);throw new v(g,"Error linking program:"+g)}'
    "S=S||c.uniforms(w,A),x=x||c.attributes(w,A),w.deleteProgram(A)}x=x.slice()"
)
#: gl-shader's whole ``update`` as a build writes it, around :data:`REFLECTION`.
SHADER_UPDATE = (
    "function(b,k,S,x){if(!k||arguments.length===1){var M=b;b=M.vertex,k=M.fragment,S=M.uniforms,"
    "x=M.attributes}var d=this,w=d.gl,y=d._vref;d._vref=f.shader(w,w.VERTEX_SHADER,b),y&&y.dispos"
    "e(),d.vertShader=d._vref.shader;var h=this._fref;if(d._fref=f.shader(w,w.FRAGMENT_SHADER,k),"
    "h&&h.dispose()," + REFLECTION + ",x.sort(_);var L=[],E=[],R=[],z;for(z=0;z<x.length;++z){var "
    'P=x[z];if(P.type.indexOf("mat")>=0){for(var I=P.type.charAt(P.type.length-1)|0,D=new Array(I'
    '),F=0;F<I;++F)D[F]=R.length,E.push(P.name+"["+F+"]"),typeof P.location=="number"?R.push(P.loc'
    'ation+F):Array.isArray(P.location)&&P.location.length===I&&typeof P.location[F]=="number"?R.'
    "push(P.location[F]|0):R.push(-1);L.push({name:P.name,type:P.type,locations:D})}else L.push({n"
    'ame:P.name,type:P.type,locations:[R.length]}),E.push(P.name),typeof P.location=="number"?R.p'
    "ush(P.location|0):R.push(-1)}var B=0;for(z=0;z<R.length;++z)if(R[z]<0){for(;R.indexOf(B)>=0;"
    ")B+=1;R[z]=B}var O=new Array(S.length);function V(){d.program=f.program(w,d._vref,d._fref,E,R"
    ");for(var $=0;$<S.length;++$)O[$]=w.getUniformLocation(d.program,S[$].name)}V(),d._relink=V,"
    'd.types={uniforms:l(S),attributes:l(x)},d.attributes=u(w,d,L,R),Object.defineProperty(d,"uni'
    'forms",s(w,d,S,O))}'
)


def test_the_shaders_of_a_pair_are_read_once_per_context() -> None:
    patch = patch_script()
    patched = patch.shader_programs("p.update=" + SHADER_UPDATE + ";")
    assert "!S||!x){var __diKey=" in patched
    assert not re.search(r"\$[a-zA-Z]", patched)  # every name went in
    assert "if(!__diSeen&&!x){var A=w.createProgram();" in patched
    assert 'throw new v(g,"Error linking program:"+g)}' in patched
    assert "V(),d._relink=V" not in patched and "d.program=null,d._relink=V," in patched
    assert patched.endswith("enumerable:!0,configurable:!0})};")
    assert patch.shader_programs(patched) == patched
    with pytest.raises(ValueError, match="reflection link found 0 times"):
        patch.shader_programs("no shader here")
    with pytest.raises(ValueError, match="first link found 0 times"):
        patch.shader_programs(REFLECTION)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_shader_links_its_program_when_first_used(tmp_path: Path) -> None:
    """The patched ``update`` run by node on a fake context (tests/web/gl_shader_update.js):
    making a shader whose attributes are given links nothing; moving its attributes then
    binding it links once, with the moved locations, and reads its uniforms from that program;
    its uniforms and types are made then, every uniform with its location; another shader of
    the pair reads none again; a shader whose attributes are unknown still links a probe at
    once, its program when first used."""
    update = tmp_path / "update.js"
    update.write_text(patch_script().shader_programs(SHADER_UPDATE), encoding="utf-8")
    harness = ROOT / "tests" / "web" / "gl_shader_update.js"
    run = subprocess.run(
        ["node", str(harness), str(update)], capture_output=True, text=True, check=True
    )
    report = json.loads(run.stdout)
    assert report["made"] == []
    assert report["bound"] == ["colour@1,position@0"]
    assert report["uniforms"] == ["model", "colour"] == report["secondUniforms"]
    assert report["types"] == {
        "uniforms": ["model", "colour"],
        "attributes": ["colour", "position"],
    }
    assert report["unknownMade"] == ["colour@1,position@0", "colour@0,position@1", "probe"]
    assert report["unknownUniforms"] == ["model", "colour"]
    assert report["links"][-1] == "position@0"


#: vectorize-text's canvas as a build writes it (made with its module), names as minified.
TEXT_CANVAS = (
    'typeof document!="undefined"&&(u=document.createElement("canvas"),u.width=8192,'
    'u.height=1024,l=u.getContext("2d"));'
)
#: vectorize-text growing that canvas for many lines, then clearing it.
TEXT_CANVAS_GROWS = (
    'oe=X*q+re;R.height<oe&&(R.height=oe),z.fillStyle="#000",z.fillRect(0,0,R.width,R.height),'
    'z.fillStyle="#fff";'
)


def test_the_text_canvas_is_a_quarter_and_keeps_its_font_when_it_grows() -> None:
    patch = patch_script()
    patched = patch.text_canvas(TEXT_CANVAS + TEXT_CANVAS_GROWS)
    assert f"u.width=8192,u.height={patch.TEXT_CANVAS_HEIGHT},l=u.getContext" in patched
    assert 2 * 64 + round(1.25 * 64) <= patch.TEXT_CANVAS_HEIGHT  # one line of 64 px text
    assert (
        "R.height<oe&&function(__diFont){R.height=oe,z.font=__diFont}(z.font),"
        'z.fillStyle="#000",z.fillRect(0,0,R.width,R.height)'
    ) in patched
    assert patch.text_canvas(patched) == patched
    with pytest.raises(ValueError, match="canvas found 0 times"):
        patch.text_canvas(TEXT_CANVAS_GROWS)
    with pytest.raises(ValueError, match="canvas growing found 0 times"):
        patch.text_canvas(TEXT_CANVAS)


#: gl-plot3d's ``createScene`` sizing its canvas, as a build writes it.
FIRST_SIZE = 'dirty=!0}}}ee.autoResize&&fe(),window.addEventListener("resize",fe);function me(){'


def test_the_scene_draws_no_frame_while_it_is_made() -> None:
    """The scene neither lays the page out nor draws when made: its first frame is the
    ``redraw`` Plotly asks for, or the loop's next animation frame."""
    patch = patch_script()
    patched = patch.first_frame(FIRST_SIZE + patch.idle_loop("a;" + LOOP + "b"))
    assert 'dirty=!0}}}window.addEventListener("resize",fe);function me(){' in patched
    assert "return ee.enableMouseListeners(),requestAnimationFrame(se)/*" in patched
    assert "ee.redraw=function(){ee._stopped||(j=!0,Te())}" in patched
    assert patch.first_frame(patched) == patched
    with pytest.raises(ValueError, match="first size found 0 times"):
        patch.first_frame(patch.idle_loop("a;" + LOOP + "b"))
    with pytest.raises(ValueError, match="first frame found 0 times"):
        patch.first_frame(FIRST_SIZE)


#: Plotly's camera setting its mode, as a build writes it, names as minified.
TURNTABLE = (
    "set:function(A){var b=g.computedUp.slice(),h=g.computedEye.slice(),"
    'k=g.computedCenter.slice();if(g.setMode(A),A==="turntable"){var m=s();'
    "g._active.lookAt(m,h,k,b),g._active.lookAt(m+500,h,k,[0,0,1]),g._active.flush(m)}"
    "return g.getMode()}"
)


def test_the_turntable_patch_keeps_the_names_and_is_done_once() -> None:
    patch = patch_script()
    patched = patch.turntable_settled(TURNTABLE)
    assert patched.startswith("set:function(A){var b=g.computedUp.slice(),h=")
    assert "})(h,k,b)?g._active.lookAt(m,h,k,[0,0,1]):(g._active.lookAt(m,h,k,b)," in patched
    assert patched.endswith("g._active.flush(m)}return g.getMode()}")
    assert not re.search(r"\$[a-zA-Z]", patched)  # every name went in
    assert patch.turntable_settled(patched) == patched
    with pytest.raises(ValueError, match="turn to turntable found 0 times"):
        patch.turntable_settled("no camera here")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_camera_turns_to_z_up_only_from_another_view(tmp_path: Path) -> None:
    """The patched setter run by node on a fake view (tests/web/turntable_mode.js): a view
    whose up is already z (the orbit camera's up is z made perpendicular to the line of
    sight) is set at once; a tilted view, or one looking straight down, still turns in 500 ms
    as Plotly's did."""
    setter = tmp_path / "setter.js"
    setter.write_text(patch_script().turntable_settled(TURNTABLE), encoding="utf-8")
    eye = [1.5, -1.5, 1.0]
    line = np.subtract([0, 0, 0], eye) / np.linalg.norm(eye)
    up = np.array([0, 0, 1]) - line[2] * line
    cases = {
        "z up": [eye, [0, 0, 0], list(up / np.linalg.norm(up))],
        "tilted": [eye, [0, 0, 0], [0.5, 0.5, 0.70710678]],
        "from above": [[0, 0, 2], [0, 0, 0], [0, 1, 0]],
    }
    harness = ROOT / "tests" / "web" / "turntable_mode.js"
    run = subprocess.run(
        ["node", str(harness), str(setter), json.dumps(cases)],
        capture_output=True,
        text=True,
        check=True,
    )
    keys = json.loads(run.stdout)
    assert keys["z up"] == [[1000, [0, 0, 1]], ["flush", 1000]]
    assert keys["tilted"] == [[1000, [0.5, 0.5, 0.70710678]], [1500, [0, 0, 1]], ["flush", 1000]]
    assert keys["from above"] == [[1000, [0, 1, 0]], [1500, [0, 0, 1]], ["flush", 1000]]


#: gl-plot3d's picking pass and a frame drawing it, as a build writes them.
PICK_PASS = (
    "function we(){if(!be()){L.colorMask(!0,!0,!0,!0),L.depthFunc(L.LEQUAL);"
    "for(var G=$.length,K=q.length,ve=0;ve<K;++ve){var ae=q[ve];ae.shape=ie,ae.begin();"
    "for(var he=0;he<G;++he)if(J[he]===ve){var xe=$[he];xe.drawPick&&(xe.pixelRatio=1,"
    "xe.drawPick(oe))}ae.end()}}}"
)
PICK_IN_FRAME = "V.bounds=Se),Q&&(Q=!1,we()),ee.axesPixels=l(ee.axes,oe,tt,et);"


def test_the_picking_pass_waits_for_a_pointer() -> None:
    """Frames skip the picking pass until a pointer event on the scene (its canvas or the
    camera's element) turns picking on: that draws the pass and reads its buffers at once."""
    patch = patch_script()
    bundle = PICK_PASS + PICK_IN_FRAME + patch.idle_loop("a;" + LOOP + "b")
    patched = patch.lazy_pick(bundle)
    assert "Q&&__diPickOn&&(Q=!1,we()),ee.axesPixels=" in patched
    assert (
        "var __diPickOn=!1;function __diPickWake(){__diPickOn||(__diPickOn=!0,"
        "Q&&oe.view&&(Q=!1,we(),q.forEach(" in patched
    )
    assert (
        '[ee.camera&&ee.camera.element,ee.canvas].forEach(function(__diEl){__diEl&&["mousemove",'
        '"mousedown","touchstart"].forEach(function(__diN){__diEl.addEventListener(__diN,'
        '__diPickWake,{passive:!0,capture:!0})})}),window.addEventListener("resize",' in patched
    )
    assert not re.search(r"\$[a-zA-Z]", patched.replace("$.length", "").replace("=$[", ""))
    assert patch.lazy_pick(patched) == patched
    with pytest.raises(ValueError, match="idle loop is not there"):
        patch.lazy_pick(PICK_PASS + PICK_IN_FRAME)
    with pytest.raises(ValueError, match="picking pass found 0 times"):
        patch.lazy_pick(PICK_IN_FRAME + patch.idle_loop("a;" + LOOP + "b"))
