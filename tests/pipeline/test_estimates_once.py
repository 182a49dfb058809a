"""While a call is prepared the Compactor estimates each list once; between calls it estimates afresh."""

from __future__ import annotations

from conversations import Call, Turn, build_session

from compaction.core.tokens import TokenCounter
from compaction.layers.micro import Micro
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor

LONG = "x = 1\n" * 400


class Counting(TokenCounter):
    """A counter that records which lists it was asked about."""

    def __init__(self):
        super().__init__("chars")
        self.asked: list[int] = []

    def counted(self, messages):
        self.asked.append(id(messages))
        return super().counted(messages)


def test_the_layers_of_one_call_ask_about_each_list_once():
    counter = Counting()
    layers = [Micro(keep_recent=1, trigger=0.0, clear_at_least=0), Summary()]
    compactor = Compactor(layers, counter=counter, context_window=10**9, threshold=10**8)
    session = build_session([Turn([Call("read_file", LONG)]) for _ in range(6)])
    passes = compactor.passes(session)
    assert passes[1][1] != passes[0][1]  # micro cleared: its before, after and the summary's trigger asked
    assert len(counter.asked) == len(set(counter.asked))


def test_a_list_changed_between_two_calls_is_estimated_again():
    counter = Counting()
    compactor = Compactor([Micro(trigger=0.0, clear_at_least=0)], counter=counter, context_window=10**9)
    messages = build_session([Turn([Call("read_file", "short")])])
    first = compactor.estimate(messages)
    messages.append({"role": "assistant", "content": LONG})  # the same list object, longer
    assert compactor.estimate(messages) > first
