"""The OAuth settings of ``mcp.json`` and the credential file (``mcp-auth.json``) in pi 1.6.0's layout."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from pi_mcp.config import validate
from pi_mcp.oauth import CredentialStore, canonical_url, store_key, uses_oauth, validate_oauth


@pytest.mark.parametrize(
    ("oauth", "error"),
    [
        ({"clientId": "c", "clientSecret": "${S}", "callbackPort": 8765, "scope": "a b"}, None),
        ({"callbackUrl": "http://localhost/oauth/callback", "clientName": "Claude Code"}, None),
        ({"clientRegistration": "dcr"}, None),
        ([], "oauth must be an object"),
        ({"clientId": 3}, "oauth.clientId must be a string"),
        ({"callbackPort": 0}, "oauth.callbackPort must be a port number"),
        ({"callbackPort": True}, "oauth.callbackPort must be a port number"),
        ({"callbackUrl": "https://example.com/cb"}, "oauth.callbackUrl must be an http URI on localhost"),
        ({"callbackUrl": "http://127.0.0.1/cb?x=1"}, "oauth.callbackUrl must be an http URI on localhost"),
        (
            {"callbackUrl": "http://127.0.0.1:9000/cb", "callbackPort": 9001},
            "oauth.callbackUrl and oauth.callbackPort name different ports",
        ),
        ({"clientName": " "}, "oauth.clientName must be a non-empty string"),
        ({"clientRegistration": "x"}, 'oauth.clientRegistration must be "auto", "dcr", or "cimd"'),
        ({"clientRegistration": "cimd"}, 'oauth.clientRegistration "cimd" is not supported'),
        (
            {"authServerMetadataUrl": "https://a/.well-known/x"},
            "oauth.authServerMetadataUrl is not supported",
        ),
    ],
)
def test_validate_oauth_accepts_pi_fields_and_names_the_bad_one(oauth: object, error: str | None) -> None:
    found = validate_oauth(oauth)
    assert found == error if error is None else (found or "").startswith(error)
    entry = validate("web", {"url": "https://mcp.example.com/mcp", "oauth": oauth}, "user")
    assert isinstance(entry, str) == (error is not None)


def test_oauth_is_for_http_entries_without_their_own_authorization() -> None:
    assert uses_oauth({"url": "https://x/mcp"}, "http")
    assert uses_oauth({"url": "https://x/mcp", "headers": {"X-Key": "k"}}, "http")
    assert not uses_oauth({"url": "https://x/mcp", "headers": {"authorization": "Bearer k"}}, "http")
    assert not uses_oauth({"url": "https://x/mcp", "bearerTokenEnvVar": "TOKEN"}, "http")
    assert not uses_oauth({"command": "server"}, "stdio")


def test_keys_are_the_namespace_and_the_url_as_pi_prints_it() -> None:
    assert canonical_url("HTTPS://Mcp.Sentry.DEV") == "https://mcp.sentry.dev/"
    assert canonical_url("https://mcp.example.com:443/mcp") == "https://mcp.example.com/mcp"
    assert canonical_url("http://127.0.0.1:8080/mcp?x=1") == "http://127.0.0.1:8080/mcp?x=1"
    assert store_key("dev-radius", "https://mcp.sentry.dev") == "mcp__dev_radius|https://mcp.sentry.dev/"


def test_credential_file_is_private_keeps_what_it_does_not_know_and_ignores_other_urls(
    tmp_path: Path,
) -> None:
    path = tmp_path / "agent" / "mcp-auth.json"
    store = CredentialStore(path)
    url = "https://mcp.example.com/mcp"
    foreign = {"serverUrl": "https://other.example.com/mcp", "tokens": {"access_token": "x"}}
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {store_key("a", url): {"serverUrl": url, "codeVerifier": "v"}, store_key("b", url): foreign}
        )
    )
    assert store.load_sync("b", url) == {"serverUrl": url}  # stored for another URL: none
    store.update_sync(
        "a", url, lambda state: state.update(tokens={"access_token": "t", "token_type": "Bearer"})
    )
    data = json.loads(path.read_text())
    assert data[store_key("a", url)] == {
        "serverUrl": url,
        "codeVerifier": "v",
        "tokens": {"access_token": "t", "token_type": "Bearer"},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.remove_sync("a", url) is True
    assert store.remove_sync("a", url) is False
    assert list(json.loads(path.read_text())) == [store_key("b", url)]
    assert not path.with_name("mcp-auth.json.lock").exists()


def test_a_broken_credential_file_is_reported_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp-auth.json"
    path.write_text('{\n  "x": ,\n}')
    with pytest.raises(OSError, match=r"mcp-auth.json:2:8: invalid JSON"):
        CredentialStore(path).load_sync("x", "https://x/mcp")


async def test_the_callback_listener_takes_the_browser_or_a_pasted_address() -> None:
    import asyncio

    import httpx
    from pi_mcp.oauth import CallbackListener, SignInError

    listener = CallbackListener("127.0.0.1", 0, "127.0.0.1", "/callback")
    await listener.start()
    try:
        port = int(listener.redirect_url.rsplit(":", 1)[1].split("/")[0])
        assert listener.redirect_url == f"http://127.0.0.1:{port}/callback"
        assert listener.deliver(f"http://127.0.0.1:{port + 1}/callback?code=c&state=s") is not None
        assert listener.deliver(f"http://127.0.0.1:{port}/other?code=c") is not None
        assert (
            listener.deliver(f"http://127.0.0.1:{port}/callback?state=s")
            == "the URL carries no authorization code"
        )
        async with httpx.AsyncClient() as client:
            missing = await client.get(f"http://127.0.0.1:{port}/favicon.ico")
            assert missing.status_code == 404
            page = await client.get(f"{listener.redirect_url}?code=abc&state=xyz")
            assert page.status_code == 200 and "Signed in" in page.text
            assert await asyncio.wait_for(listener.wait(), 5) == ("abc", "xyz")
            late = await client.get(f"{listener.redirect_url}?code=again&state=xyz")
            assert late.status_code == 400
    finally:
        await listener.close()

    refused = CallbackListener("127.0.0.1", 0, "127.0.0.1", "/callback")
    await refused.start()
    try:
        async with httpx.AsyncClient() as client:
            page = await client.get(f"{refused.redirect_url}?error=access_denied&error_description=no+thanks")
        assert page.status_code == 400 and "no thanks" in page.text
        with pytest.raises(SignInError, match="the authorization server refused: no thanks"):
            await refused.wait()
    finally:
        await refused.close()
