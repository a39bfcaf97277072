"""GitHub Copilot's login: GitHub's OAuth device flow, then a Copilot token for the GitHub token.

The auth.json record is pi 1.6.0's: ``{"type": "oauth", "refresh": <GitHub token>, "access":
<Copilot token>, "expires": <ms, five minutes before the token's end>, "enterpriseUrl"?: <domain>,
"availableModelIds": [...]}``. A refresh asks for a new Copilot token with the stored GitHub token
and re-reads the account's model list. Requests go to the endpoint the Copilot token names
(``proxy-ep=proxy.X`` → ``https://api.X``), else ``https://copilot-api.<enterprise domain>``, else
the provider's configured base URL.

``PI_GITHUB_COPILOT_LOGIN_URL`` (e.g. ``http://127.0.0.1:8765``) sends the device flow and the
token exchange to that server instead of github.com / api.github.com (a test double or a proxy).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pi_core.ai.provider import OAuthAuth, OAuthError, OAuthLoginIO

OAUTH_ID = "github-copilot"
LOGIN_URL_ENV = "PI_GITHUB_COPILOT_LOGIN_URL"
#: The OAuth app pi logs in with (GitHub's Copilot Chat client id).
CLIENT_ID = "Iv1.b507a08c87ecfe98"
#: What Copilot's token and model endpoints expect to hear from (the catalogue's models carry the same).
EDITOR_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
API_VERSION = "2026-06-01"
INDIVIDUAL_API = "https://api.individual.githubcopilot.com"
DEFAULT_POLL_INTERVAL_S = 5.0
MIN_POLL_INTERVAL_S = 1.0
SLOW_DOWN_STEP_S = 5.0
HTTP_TIMEOUT_S = 30.0
EXPIRY_MARGIN_MS = 5 * 60 * 1000


@dataclass(frozen=True)
class Endpoints:
    """Where the device flow and the token exchange go for one GitHub (github.com or Enterprise)."""

    device_code: str
    access_token: str
    copilot_token: str

    @classmethod
    def for_domain(cls, domain: str | None) -> Endpoints:
        override = os.environ.get(LOGIN_URL_ENV, "").strip().rstrip("/")
        if override:
            return cls(
                f"{override}/login/device/code",
                f"{override}/login/oauth/access_token",
                f"{override}/copilot_internal/v2/token",
            )
        host = domain or "github.com"
        return cls(
            f"https://{host}/login/device/code",
            f"https://{host}/login/oauth/access_token",
            f"https://api.{host}/copilot_internal/v2/token",
        )


def normalize_domain(text: str) -> str | None:
    """The host name of a GitHub Enterprise URL or domain, ``None`` when there is none."""
    text = text.strip()
    if not text:
        return None
    try:
        host = urlsplit(text if "://" in text else f"https://{text}").hostname
    except ValueError:
        return None
    return host or None


def api_base_url(token: str, enterprise: str | None, fallback: str | None) -> str | None:
    """The Copilot API endpoint of an account: from the token's ``proxy-ep``, else Enterprise's,
    else ``fallback`` (the provider's configured base URL)."""
    match = re.search(r"proxy-ep=([^;]+)", token)
    if match:
        return "https://" + re.sub(r"^proxy\.", "api.", match.group(1))
    if enterprise:
        return f"https://copilot-api.{enterprise}"
    return fallback


def _enterprise(credential: dict[str, Any]) -> str | None:
    value = credential.get("enterpriseUrl")
    return normalize_domain(value) if isinstance(value, str) and value else None


class CopilotLogin:
    """The :class:`pi_core.ai.provider.OAuthProvider` of ``github-copilot``."""

    oauth_id = OAUTH_ID
    name = "GitHub Copilot"

    async def login(self, io: OAuthLoginIO, base_url: str | None = None) -> dict[str, Any]:
        answer = await io.prompt("GitHub Enterprise URL/domain (blank for github.com)", "company.ghe.com")
        if answer is None:
            raise OAuthError("Login cancelled")
        domain = normalize_domain(answer)
        if answer.strip() and domain is None:
            raise OAuthError("Invalid GitHub Enterprise URL/domain")
        endpoints = Endpoints.for_domain(domain)
        import httpx

        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as client:
            device = await _start_device_flow(client, endpoints)
            io.notify(f"Open {device['verification_uri']} and enter the code {device['user_code']}")
            github_token = await _poll_for_token(client, endpoints, device)
            credential = await _copilot_token(client, endpoints, github_token, domain)
            base = api_base_url(credential["access"], domain, base_url) or INDIVIDUAL_API
            available, unconfigured = await _account_models(client, credential["access"], base)
            if unconfigured:
                io.notify("Enabling models...")
                available += await _enable_models(client, credential["access"], base, unconfigured)
        return {**credential, "availableModelIds": list(dict.fromkeys(available))}

    async def refresh(self, credential: dict[str, Any], base_url: str | None = None) -> dict[str, Any]:
        refresh_token = credential.get("refresh")
        if not isinstance(refresh_token, str) or not refresh_token:
            raise OAuthError("the stored credential has no GitHub token")
        domain = _enterprise(credential)
        import httpx

        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as client:
            fresh = await _copilot_token(client, Endpoints.for_domain(domain), refresh_token, domain)
            base = api_base_url(fresh["access"], domain, base_url) or INDIVIDUAL_API
            available, _ = await _account_models(client, fresh["access"], base)
        return {**fresh, "availableModelIds": available}

    def to_auth(self, credential: dict[str, Any]) -> OAuthAuth:
        access = credential.get("access")
        if not isinstance(access, str) or not access:
            raise OAuthError("no Copilot token in the stored credential")
        return OAuthAuth(access, api_base_url(access, _enterprise(credential), None))


# --- HTTP -----------------------------------------------------------------------------------------


async def _json(response: Any) -> Any:
    if response.status_code >= 400:
        raise OAuthError(f"{response.status_code} {response.reason_phrase}: {response.text[:500]}")
    try:
        return response.json()
    except ValueError:
        raise OAuthError(f"{response.request.url} answered with something other than JSON") from None


async def _request(client: Any, method: str, url: str, **kwargs: Any) -> Any:
    import httpx

    try:
        return await client.request(method, url, **kwargs)
    except httpx.HTTPError as error:
        raise OAuthError(f"cannot reach {url}: {error or type(error).__name__}") from None


_FORM = {"Accept": "application/json", "User-Agent": EDITOR_HEADERS["User-Agent"]}


async def _start_device_flow(client: Any, endpoints: Endpoints) -> dict[str, Any]:
    response = await _request(
        client,
        "POST",
        endpoints.device_code,
        headers=_FORM,
        data={"client_id": CLIENT_ID, "scope": "read:user"},
    )
    data = await _json(response)
    if not isinstance(data, dict):
        raise OAuthError("Invalid device code response")
    interval = data.get("interval")
    if (
        not isinstance(data.get("device_code"), str)
        or not isinstance(data.get("user_code"), str)
        or not isinstance(data.get("verification_uri"), str)
        or not isinstance(data.get("expires_in"), (int, float))
        or (interval is not None and not isinstance(interval, (int, float)))
    ):
        raise OAuthError("Invalid device code response fields")
    if urlsplit(data["verification_uri"]).scheme not in ("http", "https"):
        raise OAuthError("Untrusted verification_uri in device code response")
    return data


async def _poll_for_token(client: Any, endpoints: Endpoints, device: dict[str, Any]) -> str:
    """RFC 8628 polling: wait an interval, ask, and repeat while the user has not confirmed."""
    deadline = time.monotonic() + float(device["expires_in"])
    interval = max(MIN_POLL_INTERVAL_S, float(device.get("interval") or DEFAULT_POLL_INTERVAL_S))
    slowed = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await asyncio.sleep(min(interval, remaining))
        response = await _request(
            client,
            "POST",
            endpoints.access_token,
            headers=_FORM,
            data={
                "client_id": CLIENT_ID,
                "device_code": device["device_code"],
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            },
        )
        data = await _json(response)
        if isinstance(data, dict) and isinstance(data.get("access_token"), str):
            return str(data["access_token"])
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, str):
            raise OAuthError("Invalid device token response")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            slowed = True
            given = data.get("interval")
            step = (
                float(given) if isinstance(given, (int, float)) and given > 0 else interval + SLOW_DOWN_STEP_S
            )
            interval = max(MIN_POLL_INTERVAL_S, step)
            continue
        description = data.get("error_description")
        raise OAuthError(f"Device flow failed: {error}" + (f": {description}" if description else ""))
    raise OAuthError(
        "Device flow timed out" + (" after slow_down responses (check the clock)" if slowed else "")
    )


async def _copilot_token(
    client: Any, endpoints: Endpoints, github_token: str, domain: str | None
) -> dict[str, Any]:
    response = await _request(
        client,
        "GET",
        endpoints.copilot_token,
        headers={"Accept": "application/json", "Authorization": f"Bearer {github_token}", **EDITOR_HEADERS},
    )
    data = await _json(response)
    if not isinstance(data, dict):
        raise OAuthError("Invalid Copilot token response")
    token, expires_at = data.get("token"), data.get("expires_at")
    if not isinstance(token, str) or not isinstance(expires_at, (int, float)):
        raise OAuthError("Invalid Copilot token response fields")
    credential: dict[str, Any] = {
        "type": "oauth",
        "refresh": github_token,
        "access": token,
        "expires": int(expires_at * 1000 - EXPIRY_MARGIN_MS),
    }
    if domain:
        credential["enterpriseUrl"] = domain
    return credential


async def _account_models(client: Any, token: str, base: str) -> tuple[list[str], list[str]]:
    """(ids the account may use, ids whose policy is still to be switched on) from ``/models``."""
    from pi_builtin_providers import provider_definitions

    response = await _request(
        client,
        "GET",
        f"{base.rstrip('/')}/models",
        headers={
            "Accept": "application/json",
            "Authorization": f"Bearer {token}",
            **EDITOR_HEADERS,
            "X-GitHub-Api-Version": API_VERSION,
        },
    )
    data = await _json(response)
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise OAuthError("Invalid Copilot models response")
    rows: list[tuple[str, bool, Any]] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        supports = (item.get("capabilities") or {}).get("supports") or {}
        if isinstance(supports, dict) and supports.get("tool_calls") is False:
            continue
        policy = item.get("policy")
        rows.append((item["id"], item.get("model_picker_enabled") is True, (policy or {}).get("state")))
    picker = [mid for mid, enabled, state in rows if enabled and state != "disabled"]
    # Some Individual accounts mark no model for the picker although their policies allow them.
    fallback = base.rstrip("/") == INDIVIDUAL_API and not picker
    available = picker if picker or not fallback else [mid for mid, _, state in rows if state == "enabled"]
    known = {
        m["id"]
        for d in provider_definitions()
        if d.id == OAUTH_ID
        for m in d.models
        if isinstance(m.get("id"), str)
    }
    unconfigured = [
        mid
        for mid, enabled, state in rows
        if state == "unconfigured" and mid in known and (enabled or fallback)
    ]
    return available, unconfigured


async def _enable_models(client: Any, token: str, base: str, model_ids: list[str]) -> list[str]:
    """Switch each model's policy on (best effort; a 429 stops the batch)."""
    enabled: list[str] = []
    for model_id in model_ids:
        try:
            response = await _request(
                client,
                "POST",
                f"{base.rstrip('/')}/models/{model_id}/policy",
                headers={
                    "Content-Type": "application/json",
                    "Authorization": f"Bearer {token}",
                    **EDITOR_HEADERS,
                    "openai-intent": "chat-policy",
                    "x-interaction-type": "chat-policy",
                },
                json={"state": "enabled"},
            )
        except OAuthError:
            continue
        if response.status_code == 429:
            break
        if response.status_code < 400:
            enabled.append(model_id)
    return enabled
