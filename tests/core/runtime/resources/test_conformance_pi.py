"""Side by side with the real TypeScript pi 1.6.0: the system prompt and expanded user messages it sends.

Runs ``pi -p`` in a throwaway HOME against a loopback OpenAI-compatible server, captures the request
and compares it with what this package builds for the same files: the facts of the system prompt
(``_pi_resources_testkit.outline``; the wording is each program's own) and the expanded user
messages byte for byte. Skipped unless ``PI16_DIR`` points at an install of pi 1.6.0
(tests/fixtures/real_pi.py).
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pi_resources_testkit import outline, sample_tools, split_sections, write
from pi_core.runtime.resources import (
    DocsPaths,
    ResourceOptions,
    build_system_prompt,
    docs_block,
    expand_prompt_template,
    expand_skill_command,
    load_resources,
)

from tests.fixtures.real_pi import PI16_MISSING, RealPi, pi16

PI = pi16()


def _pi() -> RealPi:
    assert PI is not None
    return PI


pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(PI is None, reason=PI16_MISSING),
]


class _Capture(http.server.BaseHTTPRequestHandler):
    requests: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.requests.append(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in (
            {
                "choices": [
                    {"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": None}
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ):
            payload = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", **chunk}
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    requests: list[dict[str, Any]] = []
    handler = type("Handler", (_Capture,), {"requests": requests})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", requests
    finally:
        httpd.shutdown()
        httpd.server_close()


def run_pi(home: Path, cwd: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    agent = home / ".pi/agent"
    models = {
        "providers": {
            "loop": {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "x",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": "m1"}],
            }
        }
    }
    write(agent / "models.json", json.dumps(models))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }
    command = [
        *_pi().argv(),
        "--provider",
        "loop",
        "--model",
        "m1",
        "--no-session",
        "--approve",
        "-p",
        *args,
    ]
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def make_project(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    agent = home / ".pi/agent"
    proj = tmp_path / "repo/proj"
    (tmp_path / "repo/.git").mkdir(parents=True)
    write(agent / "CLAUDE.md", "global claude\n")
    write(tmp_path / "repo/AGENTS.md", "repo agents")
    write(proj / "AGENTS.MD", "upper-case name\n")
    write(agent / "APPEND_SYSTEM.md", "global append")
    write(
        proj / ".pi/skills/ok/SKILL.md", "---\nname: ok\ndescription: 'Quotes \"&\" <tags>'\n---\nOk body\n"
    )
    write(proj / ".pi/skills/hid/SKILL.md", "---\ndescription: h\ndisable-model-invocation: true\n---\nh\n")
    write(
        tmp_path / "repo/.agents/skills/x-y/SKILL.md", "---\ndescription: repo-level agents skill\n---\nx\n"
    )
    write(agent / "skills/broken/SKILL.md", "---\ndescription: [x\n---\n")
    write(agent / "prompts/fix.md", "---\nargument-hint: <a>\n---\nFix $1 then ${@:2:2} ($ARGUMENTS) [$3]\n")
    return home, proj


def test_system_prompt_and_expansions_match_pi(
    tmp_path: Path, server: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    base_url, requests = server
    home, proj = make_project(tmp_path)
    texts = ["/skill:ok please  ", '/fix "a b" c d e', "/fix"]
    for text in texts:
        result = run_pi(home, proj, base_url, "--tools", "read,bash,grep", text)
        assert result.returncode == 0, result.stderr
    assert len(requests) == len(texts)

    pi_package = _pi().package
    docs = DocsPaths(str(pi_package / "README.md"), str(pi_package / "docs"), str(pi_package / "examples"))
    monkeypatch.setenv("HOME", str(home))
    resources = load_resources(ResourceOptions(cwd=str(proj), agent_dir=str(home / ".pi/agent")))
    sent = requests[0]["messages"][0]["content"]
    for part in ("global claude", "repo agents", "upper-case name", "global append", "<name>x-y</name>"):
        assert part in sent  # the scenario exercises what it means to
    ours = build_system_prompt(sample_tools("read", "bash", "grep"), resources, docs=docs)
    # Same facts; the sentences (and the documentation block, which names this project's docs) are ours.
    assert outline(ours) == outline(sent)
    assert split_sections(ours)["docs"] == docs_block(docs)

    for text, request in zip(texts, requests, strict=True):
        expected = request["messages"][1]["content"][0]["text"]
        expanded = expand_prompt_template(
            expand_skill_command(text, resources.skills), resources.prompt_templates
        )
        assert expanded == expected


def test_settings_patterns_match_pi(
    tmp_path: Path, server: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Globs, ``!`` excludes and ``+``/``-`` overrides in both settings files select the same skills."""
    base_url, requests = server
    home = tmp_path / "home"
    agent = home / ".pi/agent"
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)

    def skill(path: Path, name: str) -> None:
        write(path / "SKILL.md", f"---\nname: {name}\ndescription: {name} skill\n---\nbody\n")

    for name in ("keep-a", "keep-b", "drop-a", "drop-b", "forced"):
        skill(agent / "skills" / name, name)
    for name in ("p-one", "p-two", "p-three"):
        skill(proj / ".pi/skills" / name, name)
    for name in ("lib-x", "lib-y", "other"):
        skill(tmp_path / "lib" / name, name)
    write(tmp_path / "lib/nested/deep/SKILL.md", "---\nname: deep\ndescription: deep skill\n---\n")
    write(
        agent / "settings.json",
        json.dumps(
            {
                "skills": [
                    "!drop-*",
                    "+skills/drop-b",
                    "-skills/keep-b/SKILL.md",
                    str(tmp_path / "lib"),
                    "lib-*",
                    "**/deep",
                ]
            }
        ),
    )
    write(proj / ".pi/settings.json", json.dumps({"skills": ["!p-t*", "+skills/p-three"]}))
    result = run_pi(home, proj, base_url, "hi")
    assert result.returncode == 0, result.stderr

    monkeypatch.setenv("HOME", str(home))
    resources = load_resources(ResourceOptions(cwd=str(proj), agent_dir=str(agent)))
    sent = requests[0]["messages"][0]["content"]
    index = sent[sent.index("<available_skills>") :]
    ours = build_system_prompt(sample_tools("read", "bash", "edit", "write"), resources)
    assert ours[ours.index("<available_skills>") :] == index
    names = re.findall(r"<name>(.*?)</name>", index)
    assert names == ["p-one", "p-three", "lib-x", "lib-y", "deep", "drop-b", "forced", "keep-a"]
