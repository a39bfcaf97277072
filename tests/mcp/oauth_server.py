"""An OAuth-protected MCP server for the tests: FastMCP over streamable HTTP with the SDK's own
authorization server (``mcp.server.auth``) and an in-memory provider that approves every request.

``OAUTH_PORT`` is its port; access tokens last an hour. ``OAUTH_CLIENT`` (``id:secret``, with
``OAUTH_CLIENT_REDIRECT``) adds a pre-registered client. The ``grants`` tool reports how many codes
and refreshes were exchanged, so a test can tell a refresh from a new sign-in.
"""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

PORT = int(os.environ["OAUTH_PORT"])
TTL = 3600
BASE = f"http://127.0.0.1:{PORT}"


class Approver:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.counts = {"codes": 0, "refreshes": 0, "registrations": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.counts["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_hex(16)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["tools"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = f"at-{secrets.token_hex(8)}", f"rt-{secrets.token_hex(8)}"
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + TTL
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(access_token=access, expires_in=TTL, scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self.counts["codes"] += 1
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self.counts["refreshes"] += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)


approver = Approver()
preset = os.environ.get("OAUTH_CLIENT")
if preset:
    client_id, _, secret = preset.partition(":")
    approver.clients[client_id] = OAuthClientInformationFull(
        client_id=client_id,
        client_secret=secret or None,
        redirect_uris=[os.environ["OAUTH_CLIENT_REDIRECT"]],  # type: ignore[list-item]
        token_endpoint_auth_method="client_secret_post" if secret else "none",
        scope="tools",
    )

server = FastMCP(
    "secured",
    port=PORT,
    auth_server_provider=approver,
    auth=AuthSettings(
        issuer_url=BASE,  # type: ignore[arg-type]
        resource_server_url=f"{BASE}/mcp",  # type: ignore[arg-type]
        validate_token_resource=False,
        required_scopes=["tools"],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["tools"], default_scopes=["tools"]
        ),
    ),
)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def grants() -> str:
    """How many authorization codes, refreshes and registrations the server handled."""
    return " ".join(f"{k}={v}" for k, v in approver.counts.items())


if __name__ == "__main__":
    server.run("streamable-http")
