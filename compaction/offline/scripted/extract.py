"""What a conversation shows, extracted for the offline summarizer: files, errors, steps, concepts.

``facts`` walks the assistant turns in order and pairs each tool call with its result: which
files were read, edited or written (and the changed line of each edit), which calls failed,
which test runs failed and which edits followed them, and what the agent said at each step.
Deliberately left out: reading file contents or diffs; only the calls and results are used.
"""

from __future__ import annotations

from compaction.core.messages import blocks, text_of, tool_use_blocks
from compaction.offline.scripted import state

LANGUAGES = {".py": "Python", ".md": "Markdown", ".txt": "plain text", ".json": "JSON", ".toml": "TOML"}


def short(value: str, limit: int) -> str:
    """``value`` on one line, cut to ``limit`` characters with "..." when longer."""
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."


def neutral(value: str) -> str:
    """Markers made inert, ``[step 4]`` -> ``(step 4)``, for every section but Current Work."""
    return state.MARKER_RE.sub(lambda m: f"(step {m.group(1)}{m.group(2) or ''})", value)


def _with_marker(cut: str, said: str) -> str:
    """``cut`` with the last marker of ``said`` put back if cutting lost it."""
    found = [m.group(0) for m in state.MARKER_RE.finditer(said)]
    return cut if not found or found[-1] in cut else f"{cut} {found[-1]}"


def facts(convo: list) -> dict:
    """What the tool calls and the agent's turns of ``convo`` show."""
    results = state.results_by_id(convo)
    files: dict[str, list[str]] = {}  # path -> what was done to it, in order
    concepts, errors, steps, current = [], [], [], []
    turns = calls = failed = 0
    failing_run = None  # index in errors of the last failing test run, to attach the fixes to
    for m in convo:
        if m.get("role") != "assistant":
            continue
        turns += 1
        said = " ".join(str(b.get("text", "")) for b in blocks(m) if b.get("type") == "text").strip()
        if said:
            steps.append(f"- {short(neutral(said), 200)}")
        current = [f"- {_with_marker(short(said, 400), said)}"] if said else []
        for use in tool_use_blocks(m):
            calls += 1
            name, args = use.get("name", "?"), use.get("input") or {}
            target = str(
                args.get("path") or args.get("command") or args.get("pattern") or args.get("focus") or ""
            )
            current.append(f"- called {name}: {short(target, 160)}")
            concepts.append(f"- the {name} tool")
            path = args.get("path")
            if isinstance(path, str):
                for suffix, language in LANGUAGES.items():
                    if path.endswith(suffix):
                        concepts.append(f"- {language}")
                files.setdefault(path, []).append(action(name, args))
                if name in ("edit_file", "write_file") and failing_run is not None:
                    errors[failing_run] += f"; then edited {path}"
            result = results.get(use.get("id"))
            body = text_of(result.get("content")) if result else ""
            outcome = state.run_outcome(body) if name == "bash" else None
            if result and result.get("is_error") and not outcome:
                failed += 1
                first = (body.strip().splitlines() or ["(no message)"])[0]
                errors.append(f"- {name} {short(target, 80)} failed: {short(first, 160)}")
            if outcome:
                concepts.append("- the project's own test runner, python run_tests.py")
                names = [ln[len("FAILED ") :] for ln in body.splitlines() if ln.startswith("FAILED ")]
                if outcome[1]:
                    errors.append(
                        f"- `{short(target, 80)}`: {outcome[0]} passed, {outcome[1]} failed "
                        f"({', '.join(names[:8])})"
                    )
                    failing_run = len(errors) - 1
                elif failing_run is not None:
                    errors.append(f"- `{short(target, 80)}`: {outcome[0]} passed, 0 failed after the fixes")
                    failing_run = None
    return {
        "files": files,
        "concepts": list(dict.fromkeys(concepts)),
        "errors": errors,
        "steps": steps[-12:],
        "current": current,
        "turns": turns,
        "calls": calls,
        "failed": failed,
    }


def action(name: str, args: dict) -> str:
    """What one file tool call did, in a few words: read, written, or the edit's changed line."""
    if name == "edit_file":
        old, new = str(args.get("old_text", "")), str(args.get("new_text", ""))
        if new.startswith(old):
            added = (new[len(old) :].strip().splitlines() or [""])[0]
            anchor = (old.strip().splitlines() or [""])[-1]
            return f"edited: added `{short(added, 90)}` after `{short(anchor, 60)}`"
        pairs = zip(old.splitlines(), new.splitlines(), strict=False)
        first = next(((a, b) for a, b in pairs if a != b), (old.strip(), new.strip()))
        return f"edited: `{short(first[0], 80)}` -> `{short(first[1], 80)}`"
    if name == "write_file":
        return f"written ({len(str(args.get('content', '')).splitlines())} lines)"
    return "read" if name == "read_file" else name
