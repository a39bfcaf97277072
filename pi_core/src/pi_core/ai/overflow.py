"""Context-overflow detection (pi-ai utils/overflow, spec §7.2).

Three cases: an error whose text matches a provider's overflow message (and no rate-limit/throttling
pattern); a "silent" overflow (stop, but input + cacheRead > context window); a "truncated" overflow
(length, zero output, input + cacheRead ≥ 99 % of the window).
"""

from __future__ import annotations

import re

from pi_core.ai.messages import AssistantMessage

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",  # Anthropic tokens
        r"request_too_large",  # Anthropic bytes (413)
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter / OpenAI chat
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai
        r"prompt too long; exceeded (?:max )?context length",  # Ollama
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",  # Cerebras
    )
)

NON_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """Whether ``message`` reports that the request did not fit the model's context window."""
    text = message.error_message
    if (
        message.stop_reason == "error"
        and text
        and not any(p.search(text) for p in NON_OVERFLOW_PATTERNS)
        and any(p.search(text) for p in OVERFLOW_PATTERNS)
    ):
        return True
    usage = message.usage
    if context_window and message.stop_reason == "stop" and usage.input + usage.cache_read > context_window:
        return True
    return bool(
        context_window
        and message.stop_reason == "length"
        and usage.output == 0
        and usage.input + usage.cache_read >= context_window * 0.99
    )
