"""The model facts the core ships are pi 1.6.0's: its default model per provider, the Anthropic and
OpenAI catalogue and the models.json compat schema as ``pi_core/scripts/*.mjs`` write them. Skipped
unless ``PI16_DIR`` points at an install of pi 1.6.0 (tests/fixtures/real_pi.py)."""

from __future__ import annotations

import json
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from pi_core.ai.resolve import DEFAULT_MODEL_PER_PROVIDER

from tests.fixtures.real_pi import PI16_MISSING, pi16

PI16 = pi16()
SCRIPTS = Path(__file__).resolve().parents[2] / "pi_core" / "scripts"
pytestmark = [pytest.mark.conformance, pytest.mark.skipif(PI16 is None, reason=PI16_MISSING)]


def _node(*args: str) -> str:
    assert PI16 is not None
    done = subprocess.run([PI16.node, *args], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_the_default_model_per_provider_is_pi16s_in_its_order() -> None:
    assert PI16 is not None
    resolver = PI16.package / "dist" / "core" / "model-resolver.js"
    table = "console.log(JSON.stringify(m.defaultModelPerProvider))"
    code = f"const m = await import({json.dumps(str(resolver))}); {table}"
    theirs = json.loads(_node("--input-type=module", "-e", code))
    assert list(DEFAULT_MODEL_PER_PROVIDER.items()) == list(theirs.items())


def test_the_core_catalogue_is_what_the_script_takes_from_pi16() -> None:
    assert PI16 is not None
    written = _node(str(SCRIPTS / "catalogue_from_pi.mjs"), str(PI16.package.parent))
    shipped = resources.files("pi_core.ai").joinpath("catalogue.json").read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(shipped)
    ids = {entry["id"] for entry in json.loads(shipped)["anthropic"] + json.loads(shipped)["openai"]}
    assert {DEFAULT_MODEL_PER_PROVIDER["anthropic"], DEFAULT_MODEL_PER_PROVIDER["openai"]} <= ids


def test_the_compat_schema_is_what_the_script_takes_from_pi16() -> None:
    assert PI16 is not None
    written = _node(str(SCRIPTS / "compat_schema_from_pi.mjs"), str(PI16.package.parent))
    shipped = resources.files("pi_core.ai").joinpath("compat_schema.json").read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(shipped)
