"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``) as strict lists.

One JSON record per line, each with a ``type``; ``RECORDS`` says what this importer does with every
type the sources below describe (Claude Code adds types from version to version: one not listed
is reported as ``unknown_record`` with its line, and its link kept). ``permission-mode``
(``permissionMode``, ``sessionId``) and ``file-history-delta`` (``messageId``,
``snapshotMessageId``, ``trackingPath``, ``backup``, ``timestamp``: one file's backup between
snapshots) hold no message, as public transcript parsers model them (pydantic models found by
code search; no maintainer documents them). The formats as public sources describe them: the
record types, their ``uuid``/``parentUuid`` links and the records that sit on the chain without being messages
(``progress``, ``attachment``, ``system``) in daaain/claude-code-log (``claude_code_log/models.py``
and ``dag.py`` at 05cc97e4); ``user`` records flagged ``isMeta`` (a local command's caveat, a hook's
feedback) in anthropics/claude-code#1050; that the model reads them in anthropics/claude-code#1357
and #7621 (it answers the caveat), and the hooks reference (code.claude.com/docs/en/hooks: a Stop
hook that blocks gives Claude its reason and the turn goes on); ``compact_boundary`` and the
``isCompactSummary`` record after it in blog.fsck.com, "Claude Code session continuation"
(2026-02-22) and anthropics/claude-code#40027; sub-agent files (``agent-<id>.jsonl`` beside the
session, or under ``<session>/subagents/`` since 2.1) in the claude_storage crate's
docs/advanced_topics.md. Assistant records hold one content block each; the records of one
response follow each other on the chain and are joined again by ``strict.normalize``.

User and assistant records are the messages, ``isMeta`` ones included (they were sent).
Every other record with a ``uuid`` is a link of the chain (``claude_chain``), never a cut. Claude
Code's own compaction (a ``compact_boundary`` system record) is listed in ``earlier_compactions``
with the summary it continued from, and the full history before it is replayed. A file whose
message records are all ``isSidechain`` is a sub-agent's session, read as its own; in a main
session file they are the sub-agent's and left out (counted). The file is read line by line, once.
Deliberately left out: timestamps, costs, the tool's own ``toolUseResult`` copies of results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from compaction.core.messages import text_of
from compaction.importers.claude_chain import MESSAGE_KINDS, Node, main_chain
from compaction.importers.lines import json_records, line_losses, text_lines
from compaction.importers.problems import NotASession, Problem, not_a_record
from compaction.importers.session import ImportedSession, imported
from compaction.importers.source import Source

# record type -> what the importer does with it (chapter 15 prints this table)
RECORDS = {
    "user": "a message: the user's words, tool results, isMeta notes (caveats, hook feedback)",
    "assistant": "a message: one content block per record, joined again by response",
    "system": "a notice (turn_duration, local_command, ...), left out; compact_boundary: a compaction",
    "summary": "a session title for the resume list, left out",
    "file-history-snapshot": "the file backups behind rewind, left out",
    "queue-operation": "a prompt queued while the agent worked, left out (it arrives as a user record)",
    "progress": "a hook or tool's progress, left out; its link is kept",
    "attachment": "a hook's or the harness's note on the chain, left out; its link is kept",
    "ai-title": "a session title, left out",
    "custom-title": "a session title the user set, left out",
    "last-prompt": "the prompt box's last text, left out",
    "tag": "a tag the user set, left out",
    "mode": "the session's mode, left out",
    "permission-mode": "the permission mode (permissionMode), left out",
    "file-history-delta": "one file's backup behind rewind (trackingPath, backup), left out",
    "agent-setting": "the agent's settings, left out",
    "agent-name": "the agent's name, left out",
    "pr-link": "a pull request link, left out",
}
CLAUDE_CODE_KEYS = ("uuid", "leafUuid", "sessionId", "parentUuid")


def claims(record: Any) -> bool:
    """True when one parsed line is a Claude Code record (a type it writes, with its keys)."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return False
    if "payload" in record or "role" in record:
        return False  # a Codex rollout item or a chat message
    return record["type"] in RECORDS and (
        any(k in record for k in CLAUDE_CODE_KEYS) or "message" in record or "messageId" in record
    )


def detect(source: Source) -> bool:
    """True when one of a JSON Lines file's first records is a Claude Code record."""
    return source.shape == "lines" and any(claims(r) for r in source.head)


def read(source: Source) -> list[ImportedSession]:
    """A Claude Code session file (a main session or a sub-agent's), every record accounted for."""
    file = source.name
    problems: list[Problem] = []
    ignored: Counter = Counter()
    nodes, sidechain, about = _nodes(text_lines(source.path, file, problems), file, problems, ignored)
    agent = ""
    if not any(n.kind in MESSAGE_KINDS for n in nodes):
        if not sidechain:
            why = "no user or assistant records with a message"
            raise NotASession(file, why + (f" ({len(problems)} lines unreadable)" if problems else ""))
        nodes = [sidechain.get(id(n), n) for n in nodes]  # a sub-agent's file: its records are the session
        agent = about.get("agent") or source.path.stem.removeprefix("agent-")
        ignored.pop("sidechain")
    chain, off_branch = main_chain(nodes, file, problems)
    raw, compactions = _raw(chain, ignored)
    records = about["records"] + line_losses(problems)
    session = imported(
        raw,
        file=file,
        format="claude-code",
        problems=problems,
        records=records,
        ignored=ignored,
        compactions=compactions,
        off_branch=off_branch,
        agent=agent,
        session_id=about.get("session", ""),
    )
    return [session]


def _nodes(lines: Iterable[str], file: str, problems: list[Problem], ignored: Counter):
    """Parse each line once: the chain's nodes, the sidechain messages apart, what the file says of itself."""
    nodes: list[Node] = []
    sidechain: dict[int, Node] = {}  # id(link node) -> the sidechain message it stands for
    about: dict = {"records": 0}  # "records" read, and the file's "session" and "agent" ids
    for number, record in json_records(lines, file, problems):
        about["records"] += 1
        node = _node(record, len(nodes), number, file, problems, ignored)
        if node is None:
            continue
        for key, field in (("session", "sessionId"), ("agent", "agentId")):
            if record.get(field) and key not in about:
                about[key] = str(record[field])
        if node.kind in MESSAGE_KINDS and record.get("isSidechain"):
            link = Node(node.index, number, node.uuid, node.parent, "link")
            sidechain[id(link)] = node
            ignored["sidechain"] += 1
            node = link
        nodes.append(node)
    return nodes, sidechain, about


def _node(record: Any, index: int, number: int, file: str, problems: list, ignored: Counter) -> Node | None:
    """What one record is on the chain; None for a record with no place on it (counted or reported)."""
    kind = record.get("type") if isinstance(record, dict) else None
    uuid = record.get("uuid") if isinstance(record, dict) and isinstance(record.get("uuid"), str) else None
    parent = record.get("parentUuid") if isinstance(record, dict) else None
    parent = parent if isinstance(parent, str) else None
    if kind in MESSAGE_KINDS:
        wrong = _malformed(record)
        if not wrong:
            compact = bool(record.get("isCompactSummary"))
            return Node(index, number, uuid, parent, kind, record["message"], compact_summary=compact)
        problems.append(Problem(file, f"line {number}", "malformed_record", wrong))
    elif kind == "system" and record.get("subtype") == "compact_boundary":
        ignored["compact_boundary system"] += 1
        parent = parent or record.get("logicalParentUuid")
        meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
        return Node(index, number, uuid, parent, "boundary", metadata=meta)
    elif kind == "system":
        ignored[f"{record.get('subtype') or 'plain'} system"] += 1
    elif kind in RECORDS:
        ignored[kind] += 1
    else:  # a type this importer does not know: reported, and its link still kept
        problems.append(Problem(file, f"line {number}", "unknown_record", not_a_record(record)))
    return Node(index, number, uuid, parent, "link") if uuid else None


def _malformed(record: dict) -> str:
    """Why a user or assistant record holds no usable message, or ''."""
    message, kind = record.get("message"), record["type"]
    if not isinstance(message, dict):
        return "'message' is not an object"
    if message.get("role") != kind:
        return f"message role {message.get('role')!r} in a {kind!r} record"
    if "content" not in message:
        return f"the message has no 'content' (keys: {', '.join(sorted(message))})"
    return ""


def _raw(chain: list[Node], ignored: Counter) -> tuple[list[dict], list[dict]]:
    """Raw messages for ``normalize``, with a mark where each earlier compaction happened."""
    raw: list[dict] = []
    compactions: list[dict] = []
    for position, node in enumerate(chain):
        where = f"line {node.line}"
        if node.kind == "boundary":
            if position:  # the history before it is in the file: replay it, mark the compaction
                meta = node.metadata or {}
                tokens = meta.get("preTokens")
                trigger = str(meta.get("trigger", ""))
                tokens = tokens if isinstance(tokens, int) else None
                compactions.append(
                    {"where": where, "trigger": trigger, "tokens_before": tokens, "summary": ""}
                )
                raw.append({"mark": len(compactions) - 1})
            continue
        if node.kind == "link":
            continue
        if node.compact_summary and compactions and not compactions[-1]["summary"]:
            compactions[-1]["summary"] = text_of(_plain(node.message.get("content")))
            ignored["compact summary"] += 1
            continue
        raw.append({"role": node.kind, "content": node.message.get("content"), "where": where})
    return raw, compactions


def _plain(content):
    return content if isinstance(content, (str, list)) else ""
