"""The package's modules use ``_`` only as gettext: a module that imports ``gettext as _`` and
also binds ``_`` (``value, _ = pair``) in a function or at module level would make that
function's ``_("...")`` fail (UnboundLocalError) or translate nothing."""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "dash_insight"
SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _bindings_of_underscore(scope: ast.AST) -> list[int]:
    """Lines where ``scope`` itself (not a nested function or comprehension) binds ``_``."""
    found: list[int] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            found.append(node.lineno)
        if isinstance(node, ast.arg) and node.arg == "_":
            found.append(node.lineno)
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return found


def shadowed_gettext(source: str) -> list[int]:
    """Lines binding ``_`` in a module that imports gettext as ``_``."""
    tree = ast.parse(source)
    if not any(
        isinstance(node, ast.ImportFrom) and any(a.asname == "_" for a in node.names)
        for node in ast.walk(tree)
    ):
        return []
    lines = _bindings_of_underscore(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            lines += [
                line
                for arg in ast.walk(node.args)
                if isinstance(arg, ast.arg) and arg.arg == "_"
                for line in [arg.lineno]
            ]
            lines += _bindings_of_underscore(node)
    return sorted(set(lines))


def test_the_check_finds_a_shadowed_gettext() -> None:
    source = (
        "from dash_insight.core.i18n import gettext as _\n"
        "def f(pair):\n    value, _ = pair\n    return _('x')\n"
    )
    assert shadowed_gettext(source) == [3]
    assert shadowed_gettext(source.replace("value, _", "value, _rest")) == []
    comprehension = (
        "from dash_insight.core.i18n import gettext as _\n"
        "def f(pairs):\n    return [a for a, _ in pairs], _('x')\n"
    )
    assert shadowed_gettext(comprehension) == []


def test_no_module_shadows_gettext() -> None:
    bad = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "protos" not in path.parts
        for line in shadowed_gettext(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "these bind _ where _ is gettext: " + ", ".join(bad)
