"""The document model rendered: the same list of blocks (:data:`food_tasks.report.spec.Block`) written as
Markdown (:func:`to_markdown`) and as HTML (:func:`to_html`)."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from pathlib import Path

from food_tasks.report.spec import Block


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(cell: str) -> str:
        return str(cell).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows])


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md_literal(text: object) -> str:
    """Untrusted text (a model's answer, a judge's reply) shown as written in Markdown: HTML escaped, every Markdown
    mark backslash-escaped, line breaks as spaces (one table cell). One pass each: linear in the text."""
    flat = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))


def _md_verbatim(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(md_literal(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(md_literal(c) for c in row) + " |" for row in rows])


def _html_verbatim(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of untrusted text: escaped, no Markdown mark rendered (``**yes**`` in an answer stays as written)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(' '.join(str(c).split()))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


# A link in a block's text: ``[text](target)``, the target a path or URL without spaces or quotes.
_LINK = re.compile(r"\[([^\]\n]+)\]\(([\w./#:%-]+)\)")


def _md_links(text: str) -> str:
    """Links as plain text for the Markdown file: the text alone where it is the target (a path), else both; a link
    to a heading of the report itself (``#anchor``) stays a link (it works wherever the file goes)."""

    def plain(m: re.Match) -> str:
        return m[0] if m[2].startswith("#") else m[1] if m[1] == m[2] else f"{m[1]} ({m[2]})"

    return _LINK.sub(plain, text)


def anchor(heading: str, taken: dict[str, int] | None = None) -> str:
    """The anchor of a heading, as GitHub makes it (lower case, marks dropped, spaces as hyphens): the HTML file gives
    its headings these ids, so ``[text](#anchor)`` works in both files. ``taken``: the anchors so far (a repeated
    heading gets ``-1``, ``-2`` ...)."""
    slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    if taken is None:
        return slug
    count = taken.get(slug, 0)
    taken[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def to_markdown(blocks: Sequence[Block]) -> str:
    """The document as Markdown (charts linked as ``charts/*.png``, the files beside it)."""
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append("#" * block[1] + " " + block[2])
        elif kind == "p":
            out.append(_md_links(block[1]))
        elif kind == "list":
            out.append("\n".join(f"- {_md_links(item)}" for item in block[1]))
        elif kind == "warn":
            text = _md_links(block[1])
            out.append(
                "> **⚠ " + text.replace("\n", "\n> ") + "**"
                if "\n" not in text
                else "> **⚠** " + text.replace("\n", "\n> ")
            )
        elif kind == "table":
            out.append(_md_table(block[1], block[2]))
        elif kind == "verbatim":
            out.append(_md_verbatim(block[1], block[2]))
        elif kind == "details":
            out.append(
                f"<details><summary>{html.escape(block[1])}</summary>\n\n{_md_table(block[2], block[3])}\n\n</details>"
            )
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
    return "\n\n".join(out) + "\n"


_INLINE = [
    (_LINK, r"<a href='\2'>\1</a>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<b>\1</b>"),
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])"), r"<i>\1</i>"),
]


def _inline(text: str) -> str:
    """Escapes, then renders the few Markdown marks the report writes ([links](target), **bold**, `code`,
    *italic*)."""
    text = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def _html_lines(text: str) -> str:
    """Lines of a paragraph: runs of ``- `` lines become a bulleted list, other lines are joined by breaks."""
    parts: list[str] = []
    items: list[str] = []
    for line in text.split("\n"):
        if line.startswith("- "):
            items.append(f"<li>{_inline(line[2:])}</li>")
            continue
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
            items = []
        parts.append(_inline(line) + "<br>")
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    return "".join(parts).removesuffix("<br>")


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{_inline(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_inline(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:14px}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left;white-space:nowrap}tr:nth-child(even){background:#f6f6f6}"
    ".scroll{overflow-x:auto}"
    ".warn{background:#fff3cd;border-left:4px solid #e0a800;padding:.5em 1em}.p{margin:1em 0}ul{margin:.3em 0}"
    "img{max-width:100%}"
)


def _image_src(path: str, base: Path | None) -> str:
    """A chart embedded as a ``data:`` URI (base64 PNG) when its file is found under ``base``, so that the HTML file
    alone carries its charts; else the path as it is."""
    file = base / path if base is not None else None
    if file is None or not file.is_file():
        return path
    return "data:image/png;base64," + base64.b64encode(file.read_bytes()).decode("ascii")


def to_html(blocks: Sequence[Block], title: str, base: str | Path | None = None) -> str:
    """The document as one HTML file; ``base``: the folder the charts' paths are relative to (they are embedded)."""
    base = Path(base) if base is not None else None
    out = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>"
    ]
    taken: dict[str, int] = {}
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"<h{block[1]} id='{html.escape(anchor(block[2], taken))}'>{_inline(block[2])}</h{block[1]}>")
        elif kind == "p":
            out.append(f"<div class='p'>{_html_lines(block[1])}</div>")
        elif kind == "list":
            out.append(_html_lines("\n".join(f"- {item}" for item in block[1])))
        elif kind == "warn":
            out.append(f"<div class='warn'>⚠ {_html_lines(block[1])}</div>")
        elif kind == "table":
            out.append(_html_table(block[1], block[2]))
        elif kind == "verbatim":
            out.append(_html_verbatim(block[1], block[2]))
        elif kind == "details":
            out.append(
                f"<details><summary>{html.escape(block[1])}</summary>{_html_table(block[2], block[3])}</details>"
            )
        elif kind == "img":
            out.append(f"<p><img src='{html.escape(_image_src(block[1], base))}' alt='{html.escape(block[2])}'></p>")
    return "\n".join(out) + "</body></html>\n"
