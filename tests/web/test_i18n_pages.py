"""Every page in Chinese, and the language switch (dash_duo, headless Chromium).

The catalog test: each page is rendered in Chinese over real jobs (the corpus, a loss landscape
job and a profiled job in one base directory) and no visible text may be an English message of
the catalog whose Chinese differs from it. What is allowed to stay English is what the catalog
itself keeps (op names such as ``Map``, ``Batch``; ``Step/Epoch``) and what is not interface
text: tag names, job folders, numbers, units, brand names.

The Latin-word test is stricter, for text that never went through the catalog (a column key, a
placeholder): every Latin word on a Chinese page must be a word of the jobs' data or one of
:data:`KEPT_TERMS`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from dash.testing.wait import until

from dash_insight.core import i18n
from dash_insight.core.settings import Settings
from dash_insight.default import create_app
from tests.conftest import CORPUS, PROFILER_CORPUS
from tests.pages import accept_language

pytestmark = pytest.mark.browser

LANDSCAPE_CORPUS = CORPUS.parent / "corpus-landscape"
JOBS = {
    CORPUS: ("lenet_sc", "lenet_lr0.01_bs32", "lenet_lr0.05_bs64", "ops_in_net"),
    LANDSCAPE_CORPUS: ("lenet_step",),
    PROFILER_CORPUS: ("lenet_prof",),
}

#: Data of the jobs that happens to spell an English message: MindSpore's top scope
#: ``Default`` (graph), the lineage's hyper-parameter ``epoch`` (MindInsight's column name), the
#: profiler's directory ``profiler`` and its context mode ``graph``.
DATA_WORDS = {
    "/graph": {"Default"},
    "/lineage": {"epoch"},
    "/profiler": {"profiler", "graph"},
}

#: Latin words a Chinese page may show besides the jobs' data: the product's name and the
#: language option; file formats, units and acronyms; MindSpore API names quoted in hints; the
#: words MindInsight's own Chinese pages keep in Latin letters ("无summary日志", "device数目",
#: "动态shape节点", "Step/Epoch") and MindSpore's dataset op kinds (the data-graph legend's
#: "Repeat"); statistics named after people; Plotly's colour scale "Jet";
#: tensor values and dtypes (``NaN``, ``DT_FLOAT32``: the file stores the dtype as a number).
KEPT_TERMS = frozenset(
    {
        *("dash", "insight", "English"),
        *("CSV", "JSON", "PNG", "SVG", "PCA", "CPU", "CRC", "MB", "ms", "us", "pb"),
        *("MindInsight", "MindSpore", "SummaryCollector", "SummaryWriter", "SummaryLandscape"),
        *("summary", "lineage", "profiler", "device", "shape", "map", "Step", "Epoch", "epoch"),
        *("Repeat", "token", "Pearson", "Spearman", "Jet", "NaN", "Inf", "DT", "FLOAT"),
    }
)

#: A Latin word: two letters or more (a single letter is a variable, "r" of Pearson's r).
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")

#: Every page, with what shows it has drawn its data.
PAGES = [
    ("/", "#job-table tbody tr td a"),
    ("/dashboard?train_id=./lenet_sc", "#card-scalar .js-plotly-plot"),
    ("/scalars?train_id=./lenet_sc", "#scalar-grid .js-plotly-plot"),
    ("/scalars?train_id=./damaged", "#scalar-grid .js-plotly-plot"),
    ("/histograms?train_id=./lenet_sc", "#hist-cards .js-plotly-plot"),
    ("/images?train_id=./lenet_sc", "#img-cards img"),
    ("/tensors?train_id=./ops_in_net", "#tensor-cards .di-vt-stats span"),
    ("/graph?train_id=./lenet_sc", "#graph-info .gp-info-empty"),
    ("/data-graph?train_id=./lenet_sc", "#data-graph-summary:not(:empty)"),
    ("/lineage", "#lineage-grid .ag-row"),
    ("/lineage?tab=dataset", "#lineage-grid .ag-row"),
    ("/compare", "#compare-grid .js-plotly-plot"),
    ("/compare/landscape", "#lc-tiles .js-plotly-plot"),
    ("/loss-landscape?train_id=./lenet_step", "#ls-info .di-ls-info-row"),
    ("/profiler?train_id=./lenet_prof", "#prof-card-ranking svg.di-svg"),
    ("/profiler/operator?train_id=./lenet_prof", "#prof-table table"),
    ("/profiler/timeline?train_id=./lenet_prof", "#prof-timeline .js-plotly-plot"),
    # A link to a job that is not there names it in Chinese too.
    ("/scalars?train_id=./nope", ".di-panel.di-empty p"),
    ("/profiler?train_id=./nope", "#prof-unavailable p"),
]

#: The visible text nodes of the page (code quoted in a hint is not text to translate), and
#: the placeholders and tooltips of what is visible.
VISIBLE_TEXTS = """
const texts = [];
const visible = el => el && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.textContent.trim();
  if (text && visible(node.parentElement)
      && !node.parentElement.closest('script, style, code, #di-client-texts')) texts.push(text);
}
document.querySelectorAll('[placeholder], [title]').forEach(el => {
  if (!visible(el)) return;
  ['placeholder', 'title'].forEach(name => {
    const value = (el.getAttribute(name) || '').trim();
    if (value) texts.push(value);
  });
});
return texts;
"""


def english_messages() -> list[tuple[str, re.Pattern[str] | None]]:
    """The catalog's English messages that Chinese translates differently: (message, a
    pattern matching it with its placeholders filled, or None without placeholders)."""
    path = Path(i18n.LOCALE_DIR) / i18n.CHINESE / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=i18n.CHINESE)
    out: list[tuple[str, re.Pattern[str] | None]] = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for english in ids:
            if english.strip() in {s.strip() for s in strings}:
                continue  # kept as it is in Chinese (op names, units)
            if "{" in english:
                parts = re.split(r"\{[^{}]*\}", english)
                if not re.search("[A-Za-z]", "".join(parts)):
                    continue  # punctuation around placeholders ("{metric}: {value}")
                pattern = "(.+?)".join(re.escape(part) for part in parts)
                out.append((english, re.compile(pattern)))
            else:
                out.append((english.strip(), None))
    return out


def untranslated(
    texts: list[str], messages: list[tuple[str, re.Pattern[str] | None]]
) -> dict[str, str]:
    """The texts that are an English message (a whole text node, or a message of several
    words inside a longer text), each with the first message it is."""
    found: dict[str, str] = {}
    for text in texts:
        for english, pattern in messages:
            if pattern is not None:
                # a long sentence may sit in a longer text ("⚠ " before it)
                match = pattern.search if len(english) > 14 else pattern.fullmatch
                hit = bool(match(text)) and len(english) > 6
            else:
                hit = text == english or (" " in english and len(english) > 8 and english in text)
            if hit:
                found.setdefault(text, english)
                break
    return found


def data_words(folder: Path) -> set[str]:
    """The Latin words of the jobs' data under ``folder``: folder and file names and the
    strings inside the files. A CSV's header row is the file's schema, not data, and is left
    out (the profiler's ``type_occurrences`` must be translated as a column name)."""
    words: set[str] = set()
    for path in [folder, *folder.rglob("*")]:
        words.update(LATIN_WORD.findall(path.name))
        if path.is_file():
            content = path.read_bytes()
            if path.suffix == ".csv":
                content = content.partition(b"\n")[2]
            words.update(word.decode() for word in re.findall(rb"[A-Za-z]{2,}", content))
    return words


def latin_words_outside_data(texts: list[str], data: set[str]) -> dict[str, list[str]]:
    """Each text with its Latin words that are neither data nor :data:`KEPT_TERMS`. A word cut
    short ("MnistData…") and a JSON text (a dataset op's parameters, shown as MindInsight
    shows them) are data."""
    found: dict[str, list[str]] = {}
    for text in texts:
        if text.startswith("{") and text.endswith(("}", "…")):
            continue
        words = [
            match.group()
            for match in LATIN_WORD.finditer(text)
            if not text.startswith("…", match.end())
            and match.group() not in data
            and match.group() not in KEPT_TERMS
        ]
        if words:
            found[text] = words
    return found


def test_latin_words_outside_data_are_found() -> None:
    data = {"loss", "MnistDataset", "lenet", "sc"}
    texts = [
        "训练日志路径：./lenet_sc",
        "loss · 最优 1.2 ms",
        "MnistData…",
        '{"op_type":"Map","operations":[]}',
        "type_occurrences (times)",
        "page",
    ]
    assert latin_words_outside_data(texts, data) == {
        "type_occurrences (times)": ["type", "occurrences", "times"],
        "page": ["page"],
    }


def test_the_check_finds_english() -> None:
    messages = english_messages()
    found = untranslated(
        [
            "Summary List",
            "Total 3 tags",
            "loss",
            "./lenet_sc",
            "训练列表",
            "⚠ This job has 2 problems; everything readable is shown.",
        ],
        messages,
    )
    assert set(found) == {
        "Summary List",
        "Total 3 tags",
        "⚠ This job has 2 problems; everything readable is shown.",
    }
    assert not untranslated(["Map", "Batch", "12", "3 个标签", "lenet_sc"], messages)


@pytest.fixture(scope="module")
def all_pages_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A base directory of corpus jobs, a loss-landscape job, a profiled job and a damaged
    job."""
    base = tmp_path_factory.mktemp("i18n") / "base"
    for corpus, jobs in JOBS.items():
        if not corpus.is_dir():
            pytest.skip(f"corpus not found at {corpus}")
        for job in jobs:
            shutil.copytree(corpus / job, base / job)
    # A damaged job: its damage reasons (kept in English in the index) are shown in Chinese.
    shutil.copytree(CORPUS / "lenet_lr0.1_bs16", base / "damaged")
    summary = next((base / "damaged").glob("*.summary.*_MS"))
    data = bytearray(summary.read_bytes())
    data[len(data) // 2] ^= 0xFF
    summary.write_bytes(bytes(data))
    return base


@pytest.fixture(scope="module")
def all_pages_app(all_pages_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One app over :func:`all_pages_base`."""
    app = create_app(
        Settings(
            summary_base_dir=str(all_pages_base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


def _wait_drawn(dash_duo: Any, selector: str) -> None:
    dash_duo.wait_for_element(selector, timeout=60)
    until(
        lambda: (
            not dash_duo.driver.execute_script(
                "return document.querySelectorAll('[data-dash-is-loading=\"true\"]').length"
            )
        ),
        30,
    )


def test_every_page_in_chinese_shows_no_english_message(
    dash_duo: Any, all_pages_app: Any, all_pages_base: Path
) -> None:
    dash_duo.start_server(all_pages_app)
    accept_language(dash_duo, "zh-CN,zh;q=0.9")
    messages = english_messages()
    vocabulary = data_words(all_pages_base) | {"nope"}  # the unknown job the test links to
    found: dict[str, dict[str, str]] = {}
    latin: dict[str, dict[str, list[str]]] = {}
    for path, ready in PAGES:
        dash_duo.wait_for_page(dash_duo.server_url + path)
        _wait_drawn(dash_duo, ready)
        assert dash_duo.driver.execute_script("return document.documentElement.lang") == "zh-CN"
        dash_duo.wait_for_text_to_equal(".di-language-option.active", "中文")
        dash_duo.driver.execute_script(  # the damage list is shown too
            "document.querySelectorAll('details').forEach(d => { d.open = true; })"
        )
        data = DATA_WORDS.get(path.split("?")[0], set())
        texts = [text for text in dash_duo.driver.execute_script(VISIBLE_TEXTS) if text not in data]
        assert any(re.search(r"[\u4e00-\u9fff]", text) for text in texts), path
        english = untranslated(texts, messages)
        if english:
            found[path] = english
        outside = latin_words_outside_data(texts, vocabulary)
        if outside:
            latin[path] = outside
    assert not found, "English messages on Chinese pages: " + "; ".join(
        f"{path}: {texts}" for path, texts in found.items()
    )
    assert not latin, "Latin words outside data on Chinese pages: " + "; ".join(
        f"{path}: {texts}" for path, texts in latin.items()
    )


def _title(dash_duo: Any) -> str | None:
    """The page's title, read in one script: the page reloads under a found element (the
    language switch), which Selenium then calls stale."""
    return dash_duo.driver.execute_script(
        "const h = document.querySelector('h1.di-title'); return h && h.innerText;"
    )


def _switch(dash_duo: Any, name: str, title: str) -> None:
    """Click 中文 / English in the top bar: the page comes back in that language at the same
    address."""
    url = dash_duo.driver.current_url
    dash_duo.find_element(f".di-language-option[title='{name}']").click()
    until(lambda: _title(dash_duo) == title, 30)
    assert dash_duo.driver.current_url == url


def test_language_switch_holds_across_reloads(dash_duo: Any, all_pages_app: Any) -> None:
    dash_duo.start_server(all_pages_app)
    accept_language(dash_duo, "en-US,en;q=0.9")
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./lenet_sc")
    _wait_drawn(dash_duo, "#scalar-grid .js-plotly-plot")
    assert _title(dash_duo) == "Scalars"
    _switch(dash_duo, "中文", "标量")
    _wait_drawn(dash_duo, "#scalar-grid .js-plotly-plot")
    dash_duo.wait_for_text_to_equal("#nav-lineage", "溯源分析")
    dash_duo.driver.refresh()
    until(lambda: _title(dash_duo) == "标量", 30)
    # the charts' own words (drawn in the browser) follow the page's language
    until(
        lambda: (
            "步骤"
            in dash_duo.driver.execute_script(
                "return Array.from(document.querySelectorAll('#scalar-grid .xtitle'))"
                ".map(t => t.textContent).join(' ')"
            )
        ),
        30,
    )

    dash_duo.wait_for_page(dash_duo.server_url + "/lineage")
    _wait_drawn(dash_duo, "#lineage-grid .ag-row")
    assert _title(dash_duo) == "溯源分析"
    dash_duo.wait_for_text_to_equal("#lineage-tab-model", "模型溯源")
    _switch(dash_duo, "English", "Lineage")
    dash_duo.driver.refresh()
    until(lambda: _title(dash_duo) == "Lineage", 30)
    dash_duo.wait_for_text_to_equal("#lineage-tab-model", "Model lineage")
    # the choice is the browser's, for every page
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./lenet_sc")
    until(lambda: _title(dash_duo) == "Scalars", 30)
    # the switch's choice wins over the browser's language
    accept_language(dash_duo, "zh-CN")
    dash_duo.driver.refresh()
    until(lambda: _title(dash_duo) == "Scalars", 30)


def test_first_visit_follows_accept_language(dash_duo: Any, all_pages_app: Any) -> None:
    dash_duo.start_server(all_pages_app)
    accept_language(dash_duo, "zh-CN")
    dash_duo.wait_for_page(dash_duo.server_url + "/")
    dash_duo.wait_for_element("#job-table tbody tr td a", timeout=60)
    assert _title(dash_duo) == "训练列表"
    dash_duo.wait_for_text_to_equal(".di-language-option.active", "中文")
    assert dash_duo.driver.execute_script("return document.cookie").find("di_language") < 0
    accept_language(dash_duo, "fr-FR,en;q=0.5")
    dash_duo.driver.refresh()
    until(lambda: _title(dash_duo) == "Summary List", 30)


CJK_JOB = "实验_学习率0.01_非常长的中文训练作业目录名称用于测试换行是否正确显示"
CJK_TAG = "损失函数/训练集上的平均损失值_很长的标签名称用于测试换行"

#: Whether anything on the page is wider than the window, and the height of one line of the
#: status and badge texts against the line height (one line each).
LAYOUT_CHECK = """
const rows = el => el ? (el.getBoundingClientRect().height
                         < 1.9 * parseFloat(getComputedStyle(el).fontSize) ? 1 : 2) : 0;
return {overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
        badge: rows(document.querySelector('#job-table .di-badge')),
        status: rows(document.querySelector('#job-table .di-nowrap'))};
"""


@pytest.fixture(scope="module")
def cjk_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from dash_insight import SummaryWriter

    base = tmp_path_factory.mktemp("cjk")
    with SummaryWriter(base / CJK_JOB) as writer:
        for step in range(10):
            writer.add_scalar(CJK_TAG, 1.0 / (step + 1), step=step)
    app = create_app(
        Settings(
            summary_base_dir=str(base),
            workspace=str(tmp_path_factory.mktemp("ws")),
            reload_interval=0,
        )
    )
    assert app.data_service.loader.wait_rounds(1)
    yield app
    app.data_service.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_cjk_job_folders_and_tags_wrap_in_both_themes(
    dash_duo: Any, cjk_app: Any, theme: str
) -> None:
    dash_duo.start_server(cjk_app)
    dash_duo.driver.set_window_size(900, 800)
    accept_language(dash_duo, "zh-CN")
    dash_duo.driver.add_cookie({"name": "di_theme", "value": theme, "path": "/"})
    # The list itself: with one job a bare / lands on its dashboard (issue 38 item 10).
    dash_duo.wait_for_page(dash_duo.server_url + "/?page=1")
    dash_duo.wait_for_element("#job-table tbody tr td a", timeout=60)
    until(
        lambda: (
            # no attribute is the light theme (the server writes none for it)
            dash_duo.driver.execute_script(
                "return document.documentElement.dataset.theme || 'light'"
            )
            == theme
        ),
        10,
    )
    link = dash_duo.find_element("#job-table tbody tr td a")
    assert link.text.replace("\n", "") == "./" + CJK_JOB
    assert link.size["height"] > 30  # the long name wraps inside its column ...
    layout = dash_duo.driver.execute_script(LAYOUT_CHECK)
    assert layout == {"overflow": False, "badge": 1, "status": 1}  # ... short words do not
    assert dash_duo.driver.execute_script(
        "return getComputedStyle(document.body).fontFamily"
    ).startswith('"PingFang SC"')
    dash_duo.wait_for_page(dash_duo.server_url + "/scalars?train_id=./" + CJK_JOB)
    _wait_drawn(dash_duo, "#scalar-grid .js-plotly-plot")
    dash_duo.wait_for_text_to_equal(".di-chart-title", CJK_TAG)
    assert not dash_duo.driver.execute_script(LAYOUT_CHECK)["overflow"]
