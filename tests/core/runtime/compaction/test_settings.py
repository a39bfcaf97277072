from __future__ import annotations

import pytest
from pi_core.runtime.compaction import (
    CompactionSettingsError,
    branch_summary_settings_from,
    compaction_settings_from,
)


def test_defaults_are_pis() -> None:
    settings = compaction_settings_from({})
    assert (settings.enabled, settings.reserve_tokens, settings.keep_recent_tokens) == (True, 16384, 20000)
    assert settings.strategy == "default"
    branch = branch_summary_settings_from({})
    assert (branch.reserve_tokens, branch.skip_prompt) == (16384, False)


def test_camel_case_keys_from_settings_json() -> None:
    settings = compaction_settings_from(
        {
            "compaction": {
                "enabled": False,
                "reserveTokens": 1000,
                "keepRecentTokens": 50,
                "strategy": "keep-recent",
            }
        }
    )
    assert (settings.enabled, settings.reserve_tokens, settings.keep_recent_tokens) == (False, 1000, 50)
    assert settings.strategy == "keep-recent"
    assert branch_summary_settings_from({"branchSummary": {"skipPrompt": True}}).skip_prompt is True


@pytest.mark.parametrize(
    "settings",
    [{"compaction": 3}, {"compaction": {"reserveTokens": "lots"}}, {"compaction": {"keepRecentTokens": -1}}],
)
def test_bad_values_are_clear_errors(settings: dict[str, object]) -> None:
    with pytest.raises(CompactionSettingsError, match="compaction"):
        compaction_settings_from(settings)
