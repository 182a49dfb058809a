"""Secrets never reach the terminal, the saved contexts or the report; ordinary text does, unchanged.

``CORPUS`` is the shapes of secrets written here, each a line as a tool output or a config file shows
it with the secret in it; ``MISSES`` is what the scanner still lets through, kept so that the claim
stays true. Every secret is built at run time from pieces, so that this file holds no secret shape
(tests/project/test_secrets.py scans the committed files).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from compaction import __main__ as cli
from compaction.evaluate.replay import redact as redact_module
from compaction.evaluate.replay.redact import redact, redact_json, secrets_in, spans, strings_in
from compaction.importers import load

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def piece(*parts: str) -> str:
    """A secret built at run time."""
    return "".join(parts)


PEM_BODY = piece("MIIEowIBAAKCAQEA", "7bq9Xk2f") + "\n" + piece("Lp4mN8sQ", "w3ZrT6yVb1cH")
# name -> (line holding the secret, the secret)
CORPUS = {
    "url password (issue 44)": ("postgresql://admin:{}@host/app", piece("Qm7vX2", "pL9w")),
    "url password with & and !": ("mysql://root:{}@db:3306/shop", piece("p&ss!", "W0rd")),
    "password: of ten characters (issue 44)": ("password: {}", piece("Qm7vX2", "pL9w")),
    "AWS_SECRET_ACCESS_KEY= (issue 44)": (
        "AWS_SECRET_ACCESS_KEY={}",
        piece("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
    ),
    "AWS access key id": ("aws_access_key_id = {}", piece("AKIA", "Z7QW3XK5N2MB4RTY")),
    "a long DB_PASSWORD=": ("export DB_PASSWORD={}", piece("s3cr3t-", "Value-2024")),
    "a short password in YAML": ("  password: {}", piece("hun", "ter2")),
    "api_key in JSON": ('{{"api_key": "{}"}}', piece("q8Zr2Lm", "W9xPt4vBn")),
    "SECRET_KEY in Python": ("SECRET_KEY = '{}'", piece("django-insecure-", "k2#f9x!m")),
    "RSA private key": (
        "-----BEGIN RSA " + "PRIVATE KEY-----\n{}\n-----END RSA " + "PRIVATE KEY-----",
        PEM_BODY,
    ),
    "OpenSSH private key": (
        "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n{}\n-----END OPENSSH " + "PRIVATE KEY-----",
        PEM_BODY,
    ),
    "a private key cut off before its END line": ("-----BEGIN " + "PRIVATE KEY-----\n{}", PEM_BODY),
    "GitHub token": ("git clone https://{}@github.com/o/r", piece("gh", "p_", "a1B2c3D4e5F6" * 3)),
    "GitHub fine-grained token": ("GH={}", piece("github", "_pat_", "11ABCDEFG0123456789", "_abcdefghij")),
    "GitLab token": ("token {}", piece("gl", "pat-", "xYz12345678901234567")),
    "Slack bot token": ("SLACK={}", piece("xo", "xb-", "1234567890-1234567890123-", "AbCdEfGhIjKlMnOp")),
    "Stripe live key": ("stripe.api_key = {}", piece("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc")),
    "OpenAI key": ("OPENAI={}", piece("sk-", "proj-", "Zz9Yy8Xx7W" * 2, "T3Blbk", "FJ", "Aa1Bb2Cc3D" * 2)),
    "Anthropic key": ("key {} set", piece("sk-", "ant-", "api03-", "A1b2C3d4E5f6G7h8I9j0" * 3)),
    "Bearer header": ("Authorization: Bearer {}", piece("abcD3fgh1jklmn0p", "qrstuvwx")),
    "Basic auth header": ("Authorization: Basic {}", piece("YWxhZGRpbjpv", "cGVuc2VzYW1l")),
    "JWT": (
        "cookie: session={}",
        piece("eyJ", "hbGciOiJIUzI1NiJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9"),
    ),
    "npm token": ("//registry.npmjs.org/:_authToken={}", piece("np", "m_", "a1b2c3d4e5f6g7h8i9j0" * 2)[:40]),
    "npm token alone": ("NPM={}", piece("np", "m_", "Z1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r9")),
    "PyPI token": ("TWINE {}", piece("py", "pi-", "AgEIcHlwaS5vcmc", "x1Y2z3" * 12)),
    "SendGrid key": ("SG {}", piece("S", "G.", "aabCdEfGhIjKlMnOpQrStU", ".", "vWxYz01234567890" * 3)[:69]),
    "Hugging Face token": ("HF {}", piece("h", "f_", "abcdefghijklmnopqrstuvwxyzABCDEF")),
    "Google API key": ("maps {}", piece("AI", "za", "SyA1234567890abcdefghijklmnopqrstuv")),
    "GITHUB_TOKEN= with any value": ("GITHUB_TOKEN={}", piece("v1.", "7f3e9a2b41c8d05e")),
    "OPENAI_API_KEY= with any value": ("export OPENAI_API_KEY={}", piece("k-", "loc4l-dev-9")),
    "Azure storage account key": ("Protocol=https;AccountKey={}", piece("A" * 44, "b" * 42, "==")),
    "Twilio API key": ("twilio {}", piece("S", "K", "0123456789abcdef0123456789abcdef")),
    "Telegram bot token": ("bot {}", piece("123456789", ":", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq")),
}
# name -> (line, secret) the scanner does not catch today (measured; see the module docstring)
MISSES = {
    "a password in prose": ("the password is {} for now", piece("hunt", "er2hunter")),
    "a password as a command-line flag": ("mysql -u root --password {} shop", piece("S3cret", "Pass")),
    "a password keyword in Japanese": ("パスワード: {}", piece("Qm7vX2", "pL9w")),
    "PASS= (no keyword it knows)": ("MY_PASS={}", piece("Qm7vX2", "pL9w")),
    "a credential named otherwise": ("credentials: {}", piece("Qm7vX2", "pL9w")),
}
ORDINARY = [
    "commit 3ea751c0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6",
    "toolu_01A09q90qw90lq917835lq9",
    "/home/me/.claude/projects/-home-me-app/6d4e2c1a-1b2c-4d5e-8f90-1234567890ab.jsonl",
    "the token budget is 200,000 tokens; max_tokens=8192; input_tokens: 120344",
    "sk-learn is not a key; neither is task-ant-farm",
    "password = os.environ['DB_PASSWORD']",
    "api_key = load_key(path)",
    "token = ${GITHUB_TOKEN}",
    "sort_key: created_at",
    "See https://docs.python.org/3/library/re.html and git@github.com:org/repo.git",
    "100.64.12.7 and 2001:db8::1 answered in 3 ms",
    # settings, not secrets (the first three printed by a real session's security audit)
    "PasswordRequired: False (Correct - using FIDO2/NGC)",
    "MaxPasswordAge: 42 days",
    "MinimumPasswordLength: 0 (No minimum!)",
    '{"password_required": true, "password": null}',
]


@pytest.mark.parametrize("name", CORPUS)
def test_each_secret_of_the_corpus_vanishes_and_a_marker_names_its_kind(name):
    line, secret = CORPUS[name]
    out = redact(line.format(secret))
    assert secret not in out, out
    for part in secret.split("\n"):  # a private key's body, line by line
        assert part not in out, out
    assert "[redacted " in out


def test_a_named_secret_keeps_its_name_and_a_url_its_host():
    assert redact(CORPUS["password: of ten characters (issue 44)"][0].format("Qm7vX2pL9w")) == (
        "password: [redacted secret keyword]"
    )
    out = redact("postgresql://admin:{}@host/app".format(piece("Qm7vX2", "pL9w")))
    assert out.startswith("postgresql://admin:[redacted ") and out.endswith("@host/app")
    key = CORPUS["Anthropic key"][1]
    assert redact(f"KEY={key}") == "KEY=[redacted anthropic]"


def test_a_private_key_goes_whole_and_the_text_after_it_stays():
    line, body = CORPUS["RSA private key"]
    out = redact("before\n" + line.format(body) + "\nafter")
    assert out == "before\n[redacted private key]\nafter"


@pytest.mark.parametrize("name", MISSES)
def test_the_known_misses_are_still_missed(name):
    """What the scanner lets through: when one starts being caught, move it to CORPUS."""
    line, secret = MISSES[name]
    assert secret in redact(line.format(secret))


@pytest.mark.parametrize("ordinary", ORDINARY)
def test_ids_hashes_paths_addresses_code_and_prose_about_tokens_are_left_alone(ordinary):
    assert redact(ordinary) == ordinary


def test_a_secret_found_in_one_place_goes_everywhere_it_appears():
    secret = piece("Qm7vX2", "pL9w")
    text = f"password: {secret}\nthe same in prose: it is {secret} here"
    assert secret not in redact(text)
    messages = [
        {"role": "user", "content": f"connect with db -p {secret}"},  # no name: missed on its own
        {"role": "assistant", "content": [{"type": "text", "text": f"password: {secret}"}]},
    ]
    assert secret in redact(messages[0]["content"])
    out = redact_json(messages)
    assert secret not in json.dumps(out)
    assert out[0]["content"] == "connect with db -p [redacted secret keyword]"


def test_redact_json_reaches_every_string_keys_included_and_leaves_the_rest():
    key = CORPUS["Anthropic key"][1]
    messages = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": f"KEY={key}"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "x", "input": {key: 3}}]},
    ]
    out = redact_json(messages)
    assert key not in json.dumps(out)
    assert out[0]["content"][0]["tool_use_id"] == "t"
    assert out[1]["content"][0]["input"] == {"[redacted anthropic]": 3}


def test_a_short_value_is_replaced_where_found_and_never_searched_for_elsewhere():
    assert secrets_in("password: abc") == {}
    assert redact("password: abc\nthe abc of it") == "password: [redacted secret keyword]\nthe abc of it"


@pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")
def test_in_the_real_sessions_by_other_agents_only_a_sample_password_is_redacted():
    """The shared sessions hold no secret; a security audit in one names settings (PasswordRequired:
    False, MaxPasswordAge: 42 days), which stay, and compares "Password123" == "PASSWORD123" to show
    how LM hashes fold case, where the keyword rule for code takes the second for a password."""
    files = sorted(p for p in DATA.rglob("*") if p.suffix in (".jsonl", ".traj", ".json"))
    assert len(files) >= 10
    found = set()
    for path in files:
        for text in strings_in(load(path).messages):
            found |= {(path.name, value) for value in secrets_in(text)} | {
                (path.name, text[start:end]) for start, end, _ in spans(text) if end - start < 8
            }
    assert found == {("audit-session-3cfce0ff.jsonl", "PASSWORD123")}


def record(kind: str, content) -> str:
    """One line of a Claude Code session file."""
    return json.dumps({"type": kind, "message": {"role": kind, "content": content}})


def leaky_sessions(folder: Path, corpus: dict[str, tuple[str, str]]) -> Path:
    """A folder of sessions, one per line of ``corpus``: a tool reads it, a record of its type is skipped."""
    folder.mkdir()
    for number, (line, secret) in enumerate(corpus.values()):
        text = line.format(secret)
        call = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "cat .env"}}
        result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": f"line 1\n{text}\n"}
        lines = [
            record("user", "set up the database and deploy"),
            record("assistant", [{"type": "text", "text": "reading the config"}, call]),
            record("user", [result]),
            json.dumps({"type": text}),  # a problem: printed and reported
            record("assistant", "done"),
        ]
        (folder / f"s{number:02d}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def replay_outputs(tmp_path: Path, capsys, *options: str) -> dict[str, str]:
    """Terminal output, saved contexts and report of ``compaction replay`` on the corpus, each one text."""
    sessions = leaky_sessions(tmp_path / "sessions", CORPUS)
    args = ["replay", str(sessions), "--strategy", "none", "--strategy", "pipeline", *options]
    status = cli.main([*args, "--save-final", str(tmp_path / "final"), "--report", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    saved = [p.read_text(encoding="utf-8") for p in sorted((tmp_path / "final").iterdir())]
    # a strategy whose final context equals none's is written once, and the terminal says so
    assert len(saved) + captured.out.count("not written again") == 2 * len(CORPUS)
    assert {f"s{n:02d}.none.json" for n in range(len(CORPUS))} <= {
        p.name for p in (tmp_path / "final").iterdir()
    }
    report = html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    return {"terminal": captured.out + captured.err, "saved contexts": "\n".join(saved), "report": report}


def leaked(text: str, secret: str) -> bool:
    """The secret, or a line of it, in ``text`` (JSON-escaped or not)."""
    escaped = json.dumps(secret)[1:-1]
    return any(part in text for part in (secret, escaped, *secret.split("\n")))


def test_no_secret_of_the_corpus_reaches_the_terminal_the_saved_contexts_or_the_report(tmp_path, capsys):
    outputs = replay_outputs(tmp_path, capsys)
    for where, text in outputs.items():
        found = [name for name, (_, secret) in CORPUS.items() if leaked(text, secret)]
        assert found == [], f"{where}: {found}"
        assert "[redacted " in text, where


def test_without_redaction_every_secret_would_reach_each_of_them(tmp_path, capsys, monkeypatch):
    """The control: the corpus does reach all three, so the test above can fail."""
    monkeypatch.setattr(redact_module, "spans", lambda text: ())
    outputs = replay_outputs(tmp_path, capsys, "--jobs", "1")  # in this process, where the patch is
    for where, text in outputs.items():
        missing = [name for name, (_, secret) in CORPUS.items() if not leaked(text, secret)]
        assert missing == [], f"{where}: {missing}"
