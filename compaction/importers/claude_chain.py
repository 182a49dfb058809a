"""The conversation a Claude Code file holds: its ``parentUuid`` chain, walked back from the last message.

Every record with a ``uuid`` is a link, whether it is a message or not (a turn's timing, a hook's
progress, a local command's caveat): the chain passes through all of them, so a record that is not
a message never cuts it. Resuming walks back from the last record along ``parentUuid``
(anthropics/claude-code#22107), so a branch the user rewound is off the chain and not replayed. A
parent that is in no record of the file (a damaged line, or a link Claude Code wrote wrong:
anthropics/claude-code#22526) does not end the conversation there: the walk goes on from the
record just before, in file order, and the break is reported with its line. A loop of parents is
broken the same way. Parallel tool results each hang off their own call's record (one content
block per assistant record); they join the chain after the calls they answer. A file where no
``parentUuid`` resolves (hand-made, or older than the links) is read in file order.
Deliberately left out: joining a session continued in another file (the chain stops at the
first record of this one).
"""

from __future__ import annotations

from dataclasses import dataclass

from compaction.importers.problems import Problem

MESSAGE_KINDS = ("user", "assistant")


@dataclass
class Node:
    """One record as the chain sees it: where it is, its links, and what it carries."""

    index: int  # place among the file's records, from 0
    line: int
    uuid: str | None
    parent: str | None
    kind: str  # "user", "assistant", "boundary" (an earlier compaction), "link" (on the chain, not sent)
    message: dict | None = None
    compact_summary: bool = False
    metadata: dict | None = None


def main_chain(nodes: list[Node], file: str, problems: list[Problem]) -> tuple[list[Node], int]:
    """The records of the conversation in order, and how many message records are off it."""
    messages = [n for n in nodes if n.kind in MESSAGE_KINDS]
    by_uuid: dict[str, Node] = {}
    for n in (n for n in nodes if n.uuid):
        if n.uuid in by_uuid:  # the later record wins the links, and the file says so
            why = f"uuid {n.uuid!r} is also on line {by_uuid[n.uuid].line}; a parentUuid naming it leads here"
            problems.append(Problem(file, f"line {n.line}", "repeated_uuid", why))
        by_uuid[n.uuid] = n
    if not messages:
        return [], 0
    if not any(n.parent in by_uuid for n in nodes):  # no link resolves in this file: file order
        return messages, 0
    chain = _walk(nodes, messages[-1], by_uuid, file, problems)
    chain = _with_parallel_results(chain, messages)
    on_chain = {id(n) for n in chain}
    return chain, sum(1 for n in messages if id(n) not in on_chain)


def _walk(nodes: list[Node], last: Node, by_uuid: dict, file: str, problems: list[Problem]) -> list[Node]:
    """From ``last`` back along the parents; a missing parent or a loop goes on in file order."""
    chain: list[Node] = []
    seen: set[int] = set()
    node: Node | None = last
    while node is not None:
        seen.add(id(node))
        chain.append(node)
        if node.parent is None:
            break
        parent = by_uuid.get(node.parent)
        if parent is not None and id(parent) not in seen:
            node = parent
            continue
        node = next((n for n in reversed(nodes[: node.index]) if id(n) not in seen), None)
        if node is None:
            break  # the first record of the file: nothing before it to lose
        why = "is in no record of the file" if parent is None else "closes a loop of parents"
        detail = f"parentUuid {chain[-1].parent!r} {why}; read on in file order from line {node.line}"
        problems.append(Problem(file, f"line {chain[-1].line}", "broken_chain", detail))
    chain.reverse()
    return chain


def _with_parallel_results(chain: list[Node], messages: list[Node]) -> list[Node]:
    """Calls and results of one response that hang off the chain, placed after the calls they join.

    Claude Code writes a response's calls as records one after the other and links each result to
    its own call, so the chain goes on from whichever result was written last: the other calls and
    results hang off it. Such a record joins the conversation when it is an assistant record of
    tool calls from the same response as its parent (``message.id``), or a user record of results
    for calls already joined. A rewound branch (new text, another response) stays off.
    """
    joined = {id(n) for n in chain}
    calls = {b.get("id") for n in chain for b in _blocks(n, "tool_use")}
    by_uuid = {n.uuid: n for n in chain if n.uuid}
    extra: list[Node] = []
    grew = True
    while grew:
        grew = False
        for n in messages:
            parent = by_uuid.get(n.parent)
            if id(n) in joined or parent is None or not _joins(n, parent, calls):
                continue
            joined.add(id(n))
            extra.append(n)
            calls.update(b.get("id") for b in _blocks(n, "tool_use"))
            if n.uuid:
                by_uuid[n.uuid] = n
            grew = True
    if not extra:
        return chain
    position = {id(n): i for i, n in enumerate(chain)}
    before: dict[int, list[Node]] = {}  # chain index -> what joins just before it
    for n in sorted(extra, key=lambda n: (n.kind != "assistant", n.index)):  # calls first, then results
        at = _root_position(n, by_uuid, position) + 1
        while at < len(chain) and chain[at].kind != "user":
            at += 1  # past the other calls of the same response
        before.setdefault(at, []).append(n)
    out: list[Node] = []
    for i, n in enumerate(chain):
        out.extend(before.get(i, ()))
        out.append(n)
    return out + before.get(len(chain), [])


def _joins(node: Node, parent: Node, calls: set) -> bool:
    """Whether an off-chain record is a call or result of the response its parent belongs to."""
    content = node.message.get("content") if node.message else None
    if not isinstance(content, list) or not content:
        return False
    if node.kind == "assistant":
        same = (
            parent.kind == "assistant"
            and _response(node) is not None
            and _response(node) == _response(parent)
        )
        return same and all(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
    results = _blocks(node, "tool_result")
    return len(results) == len(content) and all(b.get("tool_use_id") in calls for b in results)


def _root_position(node: Node, by_uuid: dict, position: dict) -> int:
    """The chain index of the record an off-chain branch hangs from."""
    while id(node) not in position:
        node = by_uuid[node.parent]
    return position[id(node)]


def _response(node: Node):
    return node.message.get("id") if node.message else None


def _blocks(node: Node, kind: str) -> list[dict]:
    content = node.message.get("content") if node.message else None
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == kind]
        if isinstance(content, list)
        else []
    )
