"""Strings shaped like keys and tokens never reach the report or the terminal; ordinary text does."""

from __future__ import annotations

import pytest

from compaction.evaluate.replay.redact import redact, redact_json

SECRETS = {
    "anthropic": "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3,
    "openai": "sk-proj-" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3" * 2,
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "google": "AIza" + "SyA1234567890abcdefghijklmnopqrstuv",
    "slack": "xoxb-1234567890-abcdefghij",
    "huggingface": "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEF",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", SECRETS)
def test_each_known_key_shape_is_replaced_by_a_marker_naming_its_kind(kind):
    out = redact(f"export KEY_X={SECRETS[kind]} # set")
    assert SECRETS[kind] not in out
    assert f"[redacted {kind}]" in out or "[redacted assignment]" in out


def test_bearer_headers_and_key_assignments_keep_their_name_and_lose_the_value():
    assert (
        redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")
        == "Authorization: Bearer [redacted bearer]"
    )
    assert redact('api_key = "q8Zr2LmW9xPt4vBn"') == 'api_key = "[redacted assignment]"'
    assert redact("password: hunter2hunter2!") == "password: [redacted assignment]"


@pytest.mark.parametrize(
    "ordinary",
    [
        "commit 3ea751c0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6",
        "toolu_01A09q90qw90lq917835lq9",
        "/home/me/.claude/projects/-home-me-app/6d4e2c1a-1b2c-4d5e-8f90-1234567890ab.jsonl",
        "the token budget is 200,000 tokens; max_tokens=8192",
        "sk-learn is not a key; neither is task-ant-farm",
    ],
)
def test_ids_hashes_paths_and_prose_about_tokens_are_left_alone(ordinary):
    assert redact(ordinary) == ordinary


def test_redact_json_reaches_every_string_of_a_message_list():
    key = SECRETS["anthropic"]
    messages = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": f"KEY={key}"}]}
    ]
    out = redact_json(messages)
    assert key not in str(out)
    assert out[0]["content"][0]["tool_use_id"] == "t"
