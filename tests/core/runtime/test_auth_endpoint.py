"""A login that names its account's endpoint (a Copilot business token) sends every request of the
session there: the prompts' and a compaction's summary alike."""

from __future__ import annotations

import json
import time
from typing import Any

from pi_core.ai.provider import OAuthAuth, OAuthError, ProviderDefinition
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionStrategyRegistry,
    SummaryRequest,
)
from pi_core.testing.faux import text_message

from .conftest import Harness


class _AccountLogin:
    """A login flow whose stored credential decides the endpoint, as Copilot's does."""

    oauth_id = "account-login"
    name = "Account"

    async def login(self, io: Any, base_url: str | None = None) -> dict[str, Any]:
        raise OAuthError("not used here")

    async def refresh(self, credential: dict[str, Any], base_url: str | None = None) -> dict[str, Any]:
        raise OAuthError("not used here")

    def to_auth(self, credential: dict[str, Any]) -> OAuthAuth:
        return OAuthAuth(credential["access"], base_url="faux://the-account-endpoint")


class _SummarizeWithTheModel:
    """Keeps the last user message on and asks the session's model for the summary."""

    def prepare(self, branch: Any, settings: Any) -> CompactionPreparation | None:
        users = [e for e in branch if e.type == "message" and e.message.role == "user"]
        return CompactionPreparation(first_kept_entry_id=users[-1].id, tokens_before=10) if users else None

    async def compact(self, preparation: Any, *, complete: Any, signal: Any, custom_instructions: Any) -> Any:
        request = SummaryRequest(system_prompt="summarize", messages=[], max_tokens=100)
        answer = await complete(request, signal)
        return CompactionResult(
            summary=answer.content[0].text,
            first_kept_entry_id=preparation.first_kept_entry_id,
            tokens_before=10,
        )


async def test_prompts_and_summaries_go_to_the_endpoint_the_login_names(harness: Harness) -> None:
    agent_dir = harness.tmp / "agent"
    in_an_hour = (time.time() + 3600) * 1000
    credential = {"type": "oauth", "access": "tok", "refresh": "r", "expires": in_an_hour}
    (agent_dir / "auth.json").write_text(json.dumps({"account": credential}))
    harness.registry.register(
        ProviderDefinition(
            id="account",
            api="faux",
            base_url="faux://the-catalogue-endpoint",
            oauth="account-login",
            models=[{"id": "m1", "contextWindow": 100_000}],
        )
    )
    harness.registry.register(_AccountLogin())
    model = harness.registry.find("account", "m1")
    assert model is not None and model.base_url == "faux://the-catalogue-endpoint"
    harness.provider.responses += [text_message("answer"), text_message("SUMMARY")]
    session = harness.build(model=model)
    strategies = CompactionStrategyRegistry()
    strategies.register("default", _SummarizeWithTheModel(), owner="tests")
    session.services.compaction = strategies

    await session.prompt("hello")
    result = await session.compact()

    assert result["summary"] == "SUMMARY"
    assert [m.base_url for m in harness.provider.request_models] == ["faux://the-account-endpoint"] * 2
    assert [options.api_key for _, options in harness.provider.requests] == ["tok", "tok"]
