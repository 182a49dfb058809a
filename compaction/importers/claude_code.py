"""Claude Code project files (``~/.claude/projects/<project>/<session>.jsonl``) as strict lists.

One JSON record per line. ``user`` and ``assistant`` records hold the API message in ``message``;
each record has a ``uuid`` and the ``parentUuid`` of the record before it, and resuming walks back
from the last record along ``parentUuid`` (anthropics/claude-code#22107), so a branch the user
rewound is off that chain and is not replayed here either. A ``system`` record of subtype
``compact_boundary`` marks a compaction Claude Code did; its ``logicalParentUuid`` points to the
record before the compaction (anthropics/claude-code#40027): the chain continues through it, the
summary Claude Code continued from (``isCompactSummary``) is kept aside, and the compaction is
listed in ``earlier_compactions``. Files where no ``parentUuid`` points to a record of the file
(hand-made, or old) are read in file order. Sidechain (sub-agent) and meta records are not part
of the main conversation and are counted, as are local records that never reach the model
(titles, file-history snapshots, queue operations: anthropics/claude-code#28261, #92735).
The file is read line by line, once. Deliberately left out: sub-agent transcripts in their own
files, timestamps, costs.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from compaction.core.messages import text_of
from compaction.importers.lines import json_records, text_lines
from compaction.importers.problems import NotASession, Problem, not_a_record
from compaction.importers.session import EarlierCompaction, ImportedSession
from compaction.importers.strict import normalize

MESSAGE_TYPES = ("user", "assistant")
# record types that stay on the user's machine and never reach the model
LOCAL_TYPES = (
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "ai-title",
    "custom-title",
    "last-prompt",
    "mode",
    "agent-setting",
    "pr-link",
)


@dataclass
class _Node:
    line: int
    uuid: str | None
    parent: str | None
    kind: str  # "user", "assistant", "boundary"
    message: dict | None = None
    compact_summary: bool = False
    metadata: dict | None = None


def read_claude_code(
    source: str | os.PathLike | Iterable[str], *, name: str | None = None
) -> ImportedSession:
    """A Claude Code session (a path, or its lines) with every repair and skip it took."""
    file = name or (Path(source).name if isinstance(source, (str, os.PathLike)) else "<lines>")
    problems: list[Problem] = []
    ignored: Counter = Counter()
    if isinstance(source, (str, os.PathLike)):
        nodes = _nodes(text_lines(source, file, problems), file, problems, ignored)
    else:
        nodes = _nodes(source, file, problems, ignored)
    if not any(n.kind in MESSAGE_TYPES for n in nodes):
        why = "no user or assistant records with a message"
        raise NotASession(file, why + (f" ({len(problems)} lines unreadable)" if problems else ""))
    chain, off_branch = _chain(nodes, file, problems)
    raw, compactions = _raw(chain, file)
    marks: dict = {}
    messages = normalize(raw, file=file, problems=problems, marks=marks)
    earlier = [
        EarlierCompaction(marks.get(i, len(messages)), c["where"], c["trigger"], c["tokens"], c["summary"])
        for i, c in enumerate(compactions)
    ]
    return ImportedSession(
        file, "claude-code", messages, problems, earlier, off_branch, ignored=dict(ignored)
    )


def _nodes(lines: Iterable[str], file: str, problems: list[Problem], ignored: Counter) -> list[_Node]:
    """Parse each line once; keep only what the chain and the messages need."""
    nodes: list[_Node] = []
    for number, record in json_records(lines, file, problems):
        kind = record.get("type") if isinstance(record, dict) else None
        where = f"line {number}"
        if kind in MESSAGE_TYPES:
            node = _message_node(record, number, file, problems)
            if node is not None and (record.get("isSidechain") or record.get("isMeta")):
                ignored["sidechain" if record.get("isSidechain") else "meta"] += 1
            elif node is not None:
                nodes.append(node)
        elif kind == "system" and record.get("subtype") == "compact_boundary":
            parent = record.get("parentUuid") or record.get("logicalParentUuid")
            meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
            nodes.append(_Node(number, record.get("uuid"), parent, "boundary", metadata=meta))
        elif kind in LOCAL_TYPES:
            ignored[kind] += 1
            if record.get("uuid"):  # local notices sit on the chain: keep the link, not the record
                nodes.append(_Node(number, record["uuid"], record.get("parentUuid"), "local"))
        else:
            problems.append(Problem(file, where, "unknown_record", not_a_record(record)))
    return nodes


def _message_node(record: dict, number: int, file: str, problems: list[Problem]) -> _Node | None:
    message = record.get("message")
    kind = record["type"]
    wrong = (
        "'message' is not an object"
        if not isinstance(message, dict)
        else f"message role {message.get('role')!r} in a {kind!r} record"
        if message.get("role") != kind
        else f"the message has no 'content' (keys: {', '.join(sorted(message))})"
        if "content" not in message
        else ""
    )
    if wrong:
        problems.append(Problem(file, f"line {number}", "malformed_record", wrong))
        return None
    return _Node(
        number,
        record.get("uuid"),
        record.get("parentUuid"),
        kind,
        message,
        compact_summary=bool(record.get("isCompactSummary")),
    )


def _chain(nodes: list[_Node], file: str, problems: list[Problem]) -> tuple[list[_Node], int]:
    """The records of the conversation in order, and how many message records are off it."""
    messages = [n for n in nodes if n.kind in MESSAGE_TYPES]
    by_uuid: dict[str, _Node] = {}
    for n in (n for n in nodes if n.uuid):
        if n.uuid in by_uuid:  # the later record wins the links, and the file says so
            why = f"uuid {n.uuid!r} is also on line {by_uuid[n.uuid].line}; a parentUuid naming it leads here"
            problems.append(Problem(file, f"line {n.line}", "repeated_uuid", why))
        by_uuid[n.uuid] = n
    if not any(n.parent in by_uuid for n in nodes):  # no link resolves in this file: file order
        return messages, 0
    chain: list[_Node] = []
    seen: set[int] = set()
    node: _Node | None = messages[-1]
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        chain.append(node)
        if node.parent is None:
            break
        if node.parent not in by_uuid:
            problems.append(Problem(file, f"line {node.line}", "broken_chain", f"parentUuid {node.parent!r}"))
            break
        node = by_uuid[node.parent]
    chain.reverse()
    on_chain = {id(n) for n in chain}
    chain = _with_parallel_results(chain, messages, on_chain)
    on_chain = {id(n) for n in chain}
    return chain, sum(1 for n in messages if id(n) not in on_chain)


def _with_parallel_results(chain: list[_Node], messages: list[_Node], on_chain: set[int]) -> list[_Node]:
    """Add results that hang off the chain beside another result (parallel calls) after their parent."""
    position = {n.uuid: i for i, n in enumerate(chain) if n.uuid}
    extra: dict[int, list[_Node]] = {}
    for n in messages:
        if id(n) in on_chain or n.kind != "user" or n.parent not in position or not _only_results(n):
            continue
        extra.setdefault(position[n.parent], []).append(n)
    if not extra:
        return chain
    out: list[_Node] = []
    for i, n in enumerate(chain):
        out.append(n)
        out.extend(extra.get(i, ()))
    return out


def _only_results(node: _Node) -> bool:
    content = node.message.get("content") if node.message else None
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _raw(chain: list[_Node], file: str) -> tuple[list[dict], list[dict]]:
    """Raw messages for ``normalize``, with a mark where each earlier compaction happened."""
    raw: list[dict] = []
    compactions: list[dict] = []
    for position, node in enumerate(chain):
        where = f"line {node.line}"
        if node.kind == "boundary":
            if position:  # the history before it is in the file: replay it, mark the compaction
                meta = node.metadata or {}
                tokens = meta.get("preTokens")
                compactions.append(
                    {
                        "where": where,
                        "trigger": str(meta.get("trigger", "")),
                        "tokens": tokens if isinstance(tokens, int) else None,
                        "summary": "",
                    }
                )
                raw.append({"mark": len(compactions) - 1})
            continue
        if node.kind == "local":
            continue
        if node.compact_summary and compactions and not compactions[-1]["summary"]:
            compactions[-1]["summary"] = text_of(_plain(node.message.get("content")))
            continue
        raw.append({"role": node.kind, "content": node.message.get("content"), "where": where})
    return raw, compactions


def _plain(content):
    return content if isinstance(content, (str, list)) else ""
