"""The rendered edition: every chapter, exercise and solution of both languages as static HTML.

``python -m compaction.course render`` (``make edition``) writes a site that mirrors the repository:
``notebooks/05_micro.ipynb`` becomes ``notebooks/05_micro.html``, ``ja/notebooks/...`` becomes
``ja/notebooks/...``, with an index per edition (``index.html``, ``ja/index.html``). A page is
nbconvert's HTML export (its ``lab`` template, JupyterLab's look) of the committed notebook: the
saved outputs as they are, and each widget drawn by the Jupyter widgets' HTML manager from the widget
state saved in the notebook's metadata, so that a reader browses a live-looking course with no
kernel. nbconvert is the Jupyter project's own converter, and the only tool among those that render
notebooks (jupyter-book, mkdocs-jupyter, nbsphinx) whose exporter this needs and nothing more.

The HTML manager (``@jupyter-widgets/html-manager``, the package nbconvert's pages load) is fetched
from the npm registry with ``npm pack`` at build time and served from the site (``_static/``), so a
page asks no other server for anything; without npm the pages load it from the jsDelivr CDN instead,
and the build says so. Links between notebooks (``05_micro.ipynb``, ``../exercises/05_micro.ipynb``)
become links between pages, each page gets a bar with the edition's index, the previous and next
page of its kind, its chapter, exercise and solution, and the same page in the other language; a
link to a page the build did not write is reported. Deliberately left out: MathJax and require.js
(no chapter has formulas, and "$2 ... $3" in prose would turn into one), running any notebook, and
search.
"""

from __future__ import annotations

import html
import posixpath
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

from compaction.presentation.language import say, use_language

EDITIONS = {"en": "", "ja": "ja/"}  # language -> its folder in the repository (and in the site)
KINDS = ("notebooks", "exercises", "solutions")  # the folders rendered: chapters, exercises, solved
HTML_MANAGER = ("@jupyter-widgets/html-manager", "1.0.15")  # the renderer of ipywidgets 8's state
CDN = "https://cdn.jsdelivr.net/npm/{}@{}/dist/embed.js".format(*HTML_MANAGER)
STATIC = "_static/html-manager"  # in the site: embed.js, its licence and the icon fonts it asks for
FONTS = (".woff2", ".woff", ".ttf", ".eot", ".svg")
TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{#- loaded before the page's load event, which the renderer waits for (the lab template's loader adds
    it after DOMContentLoaded, and a 2 MB script could miss the event) -#}
{% block jupyter_widgets %}{% if "widgets" in nb.metadata %}
<script defer src="{{ resources.widget_renderer_url }}"></script>{% endif %}{% endblock jupyter_widgets %}
{% block extra_css %}<style>{{ resources.edition.css }}</style>{% endblock extra_css %}
{%- block body_header -%}{{ super() }}{{ resources.edition.nav }}{%- endblock body_header -%}
{% block body_footer %}{{ resources.edition.nav }}{{ super() }}{% endblock body_footer %}
{#- pygments' HTML of our code is escaped already: the lab template's bleach pass was 40% of a page -#}
{% block input %}<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
<div class="cm-editor cm-s-jupyter">{{ cell.source | highlight_code(metadata=cell.metadata) }}</div></div>
{%- endblock input %}
"""
CSS = """nav.edition{font:14px/1.6 system-ui,sans-serif;display:flex;flex-wrap:wrap;gap:4px 18px;
padding:8px 12px;margin:0 0 12px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
nav.edition a{text-decoration:none}nav.edition .here{font-weight:600}"""
INDEX_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;
color:#24292f}table{border-collapse:collapse}td,th{border-bottom:1px solid #d0d7de;padding:4px 10px;
text-align:left}a{text-decoration:none}"""
LINK = re.compile(r'(?P<attr>href|src)="(?P<url>[^"#?]*)(?P<rest>[#?][^"]*)?"')
LOCAL = re.compile(r"^(?![a-z][a-z0-9+.-]*:|/|#)", re.IGNORECASE)  # a relative link (no scheme, no /)
HEADING = re.compile(r"^#\s+(.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Page:
    """One notebook of the course and where its page goes in the site."""

    source: str  # the notebook, relative to the course root: "ja/notebooks/05_micro.ipynb"
    language: str
    kind: str  # one of KINDS

    @property
    def target(self) -> str:
        """The page's path in the site."""
        return self.source.removesuffix(".ipynb") + ".html"

    @property
    def stem(self) -> str:
        """The chapter's file name without its folder and suffix: "05_micro"."""
        return Path(self.source).stem


@dataclass
class Built:
    """What a build wrote: the pages, the renderer the pages load, broken links, seconds taken."""

    pages: list[Page]
    renderer: str
    broken: list[str]
    seconds: float


def course_pages(root: Path, languages: Sequence[str], chapters: Sequence[str] = ()) -> list[Page]:
    """Every notebook of the editions in ``languages`` (only the ``chapters`` given by number, if any)."""
    found = []
    for language in languages:
        for kind in KINDS:
            for path in sorted((root / f"{EDITIONS[language]}{kind}").glob("*.ipynb")):
                if not chapters or path.stem.split("_", 1)[0] in chapters:
                    found.append(Page(str(path.relative_to(root).as_posix()), language, kind))
    return found


def title(notebook: nbformat.NotebookNode, fallback: str) -> str:
    """The first top-level heading of a notebook's markdown, or ``fallback``."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            found = HEADING.search(cell.source)
            if found:
                return found.group(1).strip()
    return fallback


def relative(target: str, start: str) -> str:
    """The link from the page at ``start`` to ``target``, both paths in the site."""
    depth = start.count("/")
    return "../" * depth + target


def local_links(page_html: str) -> str:
    """Links to notebooks (``x.ipynb``, ``../exercises/x.ipynb#part``) made links to their pages."""

    def fix(match: re.Match) -> str:
        url = match.group("url")
        if LOCAL.match(url) and url.endswith(".ipynb"):
            url = url.removesuffix(".ipynb") + ".html"
        return f'{match.group("attr")}="{url}{match.group("rest") or ""}"'

    return LINK.sub(fix, page_html)


def navigation(page: Page, pages: dict[str, Page], titles: dict[str, str]) -> str:
    """The bar of a page: the index, previous and next of its kind, its siblings, the other language."""
    with use_language(page.language):
        here = page.target
        links = [(f"{EDITIONS[page.language]}index.html", say("Contents"))]
        same = [p for p in pages.values() if (p.language, p.kind) == (page.language, page.kind)]
        at = same.index(page)
        if at > 0:
            links.append((same[at - 1].target, "◀ " + titles[same[at - 1].source]))
        if at + 1 < len(same):
            links.append((same[at + 1].target, titles[same[at + 1].source] + " ▶"))
        for kind, name in zip(KINDS, (say("chapter"), say("exercise"), say("solution")), strict=True):
            sibling = pages.get(f"{EDITIONS[page.language]}{kind}/{page.stem}.ipynb")
            if sibling is page:
                links.append((sibling.target, f"<span class='here'>{name}</span>"))
            elif sibling:
                links.append((sibling.target, name))
        for language, folder in EDITIONS.items():
            other = pages.get(folder + page.source.removeprefix(EDITIONS[page.language]))
            if language != page.language and other:
                links.append((other.target, "English" if language == "en" else "日本語"))
    items = [f'<a href="{relative(target, here)}">{text}</a>' for target, text in links]
    return f'<nav class="edition">{"".join(items)}</nav>'


@lru_cache(maxsize=8)  # one per language and page depth: building the template is a third of a page
def exporter(language: str, renderer: str) -> HTMLExporter:
    """nbconvert's HTML exporter with the edition's template, loading the widgets from ``renderer``."""
    return HTMLExporter(
        extra_loaders=[DictLoader({"edition.html.j2": TEMPLATE})],
        template_file="edition.html.j2",
        widget_renderer_url=renderer,
        language_code=language,
    )


def render_page(root: Path, out: Path, page: Page, nav: str, name: str, renderer: str) -> str:
    """Write one page; the site path it was written to."""
    notebook = nbformat.read(root / page.source, as_version=4)
    url = renderer if "://" in renderer else relative(renderer, page.target)
    resources = {"metadata": {"name": name}, "edition": {"nav": nav, "css": CSS}}
    body, _ = exporter(page.language, url).from_notebook_node(notebook, resources=resources)
    target = out / page.target
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(local_links(body), encoding="utf-8")
    return page.target


def index_page(language: str, pages: list[Page], titles: dict[str, str]) -> str:
    """The edition's contents: one row per chapter with its exercise and solution."""
    folder = EDITIONS[language]
    by_source = {p.source: p for p in pages}
    with use_language(language):
        rows = []
        for page in (p for p in pages if p.language == language and p.kind == "notebooks"):
            link = relative(page.target, folder + "index.html")
            cells = [f'<a href="{link}">{html.escape(titles[page.source])}</a>']
            for kind, name in (("exercises", say("exercise")), ("solutions", say("solution"))):
                other = by_source.get(f"{folder}{kind}/{page.stem}.ipynb")
                link = relative(other.target, folder + "index.html") if other else ""
                cells.append(f'<a href="{link}">{name}</a>' if other else "-")
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        head = say("Context compaction, layer by layer")
        about = say(
            "Every chapter, exercise and solution with the outputs saved in the repository; each widget"
            " shows the state it was saved in (its buttons need a running kernel). To run the cells, clone"
            " the repository and run make lab."
        )
        columns = "".join(f"<th>{name}</th>" for name in (say("chapter"), say("exercise"), say("solution")))
    others = [
        f'<a href="{relative(EDITIONS[other] + "index.html", folder + "index.html")}">'
        f"{'English' if other == 'en' else '日本語'}</a>"
        for other in EDITIONS
        if other != language and any(p.language == other for p in pages)
    ]
    return (
        f'<!DOCTYPE html><html lang="{language}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(head)}</title><style>{INDEX_STYLE}</style></head><body>"
        f"<p>{' '.join(others)}</p><h1>{html.escape(head)}</h1><p>{html.escape(about)}</p>"
        f"<table><tr>{columns}</tr>{''.join(rows)}</table></body></html>"
    )


def widget_renderer(out: Path, npm: str | None = None) -> str:
    """The HTML manager in the site (``npm pack`` from the registry), or its CDN address without npm."""
    npm = npm or shutil.which("npm")
    if not npm:
        print(f"npm not found: the pages load the widget renderer from {CDN}")
        return CDN
    with tempfile.TemporaryDirectory() as folder:
        packed = subprocess.run(
            [npm, "pack", "--silent", "{}@{}".format(*HTML_MANAGER)],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
        archives = sorted(Path(folder).glob("*.tgz"))
        if packed.returncode or not archives:
            print(f"npm pack failed ({packed.stderr.strip()[-200:]}): the pages load it from {CDN}")
            return CDN
        target = out / STATIC
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archives[0]) as archive:
            for member in archive.getmembers():
                name = Path(member.name)
                kept = name.name in ("embed.js", "embed.js.LICENSE.txt") or name.suffix in FONTS
                source = archive.extractfile(member) if member.isfile() else None
                if source and kept and name.parent.as_posix() == "package/dist":
                    (target / name.name).write_bytes(source.read())
    return f"{STATIC}/embed.js"


def broken_links(out: Path, left_out: frozenset[str] = frozenset()) -> list[str]:
    """'page: link' for each relative link or source of the site that leads nowhere (``left_out``: pages
    of the course this build did not write, which a link may name)."""
    broken = []
    for page in sorted(out.rglob("*.html")):
        where = page.relative_to(out).as_posix()
        for match in LINK.finditer(page.read_text(encoding="utf-8")):
            url = match.group("url")
            if not url or not LOCAL.match(url):
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(where), url))
            if target.startswith("../") or not ((out / target).exists() or target in left_out):
                broken.append(f"{where}: {url}")
    return broken


def _render(job: tuple) -> str:
    """``render_page`` for a worker process."""
    return render_page(*job)


def build(
    root: Path,
    out: Path,
    languages: Sequence[str] = tuple(EDITIONS),
    chapters: Sequence[str] = (),
    renderer: str | None = None,
    workers: int = 1,
) -> Built:
    """Render the editions in ``languages`` (``chapters`` by number, or all) into ``out``, replacing it."""
    start = time.perf_counter()
    pages = course_pages(root, languages, chapters)
    if not pages:
        raise ValueError(f"no notebook to render in {root} for {list(languages)} {list(chapters) or ''}")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    renderer = renderer or widget_renderer(out)
    notebooks = {p.source: nbformat.read(root / p.source, as_version=4) for p in pages}
    titles = {source: title(nb, Path(source).stem) for source, nb in notebooks.items()}
    by_source = {p.source: p for p in pages}
    jobs = []
    for page in pages:
        with use_language(page.language):
            name = f"{titles[page.source]} · {say('Context compaction, layer by layer')}"
        jobs.append((root, out, page, navigation(page, by_source, titles), name, renderer))
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(_render, jobs))
    else:
        for job in jobs:
            _render(job)
    for language in languages:
        index = out / EDITIONS[language] / "index.html"
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_text(index_page(language, pages, titles), encoding="utf-8")
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ as it is
    left_out = frozenset(p.target for p in course_pages(root, tuple(EDITIONS))) - {p.target for p in pages}
    return Built(pages, renderer, broken_links(out, left_out), time.perf_counter() - start)
