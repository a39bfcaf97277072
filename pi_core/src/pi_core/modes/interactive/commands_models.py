"""Built-in commands for models and credentials: /model, /scoped-models, /thinking, /login, /logout."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from rich.text import Text

from pi_core.ai.abort import AbortSignal
from pi_core.ai.provider import Model, OAuthError, OAuthProvider
from pi_core.ai.resolve import did_you_mean, find_exact_model
from pi_core.modes.interactive.command_base import CommandBase
from pi_core.modes.interactive.program_status import Blocked
from pi_core.modes.interactive.sanitize import sanitize


class ModelCommands(CommandBase):
    async def cmd_model(self, args: str) -> None:
        models: list[Model] = await self._session.get_available_models()
        if not models:
            self._warn("No models available: set an API key (see /help) or add models.json")
            return
        chosen = find_exact_model(args, models) if args else None
        as_default = False
        if chosen is None:
            # As pi: anything but an exact reference opens the selector with it as the search.
            from pi_core.modes.interactive.model_selector import ModelList, ModelSelector

            session = self._session
            settings = session.settings.settings
            default = None
            if settings.default_provider and settings.default_model:
                default = (settings.default_provider, settings.default_model)
            listed = ModelList(
                models,
                current=session.model,
                default=default,
                scoped=[model for model, _ in session.services.scoped_models],
                query=args.strip(),
            )
            selector = ModelSelector(listed, keymap=self.mode.keymap.keys, styles=lambda: self.mode.styles)
            chosen = await self.mode.show_selector(selector)
            if chosen is None:
                return
            as_default = selector.as_default
        # As pi 1.6.0: the default of new sessions changes only by Ctrl+S in the selector.
        await self._session.set_model(chosen, persist=as_default)
        self._info(f"{'Default model' if as_default else 'Model'}: {chosen.provider}/{chosen.id}")

    async def cmd_scoped_models(self, args: str) -> None:
        from pi_core.modes.interactive.scoped_models_selector import ScopedModelsSelector, full_id

        session = self._session
        available: list[Model] = await session.get_available_models()
        if not available:
            self._warn("No models available: set an API key (see /login) or add models.json")
            return
        by_id = {full_id(model): model for model in available}
        levels = {full_id(m): level for m, level in session.services.scoped_models}
        start = [full_id(m) for m, _ in session.services.scoped_models] or None
        saved: list[bool] = []

        def apply(enabled: list[str] | None) -> None:
            """Each change, at once for this session (as pi): none or all chosen is every model."""
            chosen = [model_id for model_id in enabled or [] if model_id in by_id]
            cycle = chosen if chosen and len(set(chosen)) < len(by_id) else []
            session.services.scoped_models = [(by_id[model_id], levels.get(model_id)) for model_id in cycle]

        def save(enabled: list[str] | None) -> None:
            everything = enabled is not None and set(enabled) == set(by_id)
            session.settings.set("enabledModels", None if enabled is None or everything else list(enabled))
            saved.append(True)

        selector = ScopedModelsSelector(
            available,
            start,
            on_change=apply,
            on_save=save,
            keymap=self.mode.keymap.keys,
            styles=lambda: self.mode.styles,
        )
        await self.mode.show_selector(selector)
        if saved:
            self._info("Model selection saved to settings")
        names = [full_id(m) for m, _ in session.services.scoped_models]
        self._info(f"Ctrl+P cycles through: {', '.join(names) if names else 'all available models'}")

    async def cmd_thinking(self, args: str) -> None:
        session = self._session
        levels = session.available_thinking_levels()
        wanted = args.strip().lower()
        if not wanted:
            # As pi: the levels the model offers, in the editor's place.
            from pi_core.modes.interactive.thinking_selector import (
                DEFAULT_LEVEL,
                ThinkingList,
                ThinkingSelector,
            )

            listed = ThinkingList(
                levels,
                current=session.thinking_level,
                default=session.settings.settings.default_thinking_level or DEFAULT_LEVEL,
            )
            selector = ThinkingSelector(listed, keymap=self.mode.keymap.keys, styles=lambda: self.mode.styles)
            chosen = await self.mode.show_selector(selector)
            if chosen is None:
                return
            as_default = selector.as_default
        elif wanted in levels:
            chosen, as_default = wanted, False
        else:
            self._warn(f'Unknown thinking level "{args.strip()}". Available levels: {", ".join(levels)}.')
            return
        # As pi 1.6.0: only Ctrl+S in the selector saves the level as the default.
        session.set_thinking_level(chosen, persist=as_default)
        self._info(f"{'Default thinking level' if as_default else 'Thinking level'}: {chosen}")

    async def cmd_login(self, args: str) -> None:
        registry = self._session.model_registry
        choices = registry.login_providers()
        ids = [provider for provider, _ in choices]
        provider: str | None = args.strip() or None
        if provider is not None and provider not in ids:
            self._warn(f'Unknown provider "{provider}".{did_you_mean(provider, ids)} /login lists them.')
            return
        if provider is None:
            if not choices:
                self._warn("No providers known: add one in models.json")
                return
            provider = await self._choose_provider("Select provider to configure:", choices)
            if provider is None:
                return
        flow = registry.oauth_provider(provider)
        if flow is not None:
            await self._oauth_login(provider, flow)
            return
        # The terminal hears that pi waits for a login (OSC 7501 ``auth``), as pi reports it.
        with self._logging_in(provider):
            key = await self.mode.question(
                f"API key for {provider}", placeholder="pasted key (not shown)", secret=True
            )
        if not key or not key.strip():
            self._warn("No key given; nothing saved")
            return
        try:
            await asyncio.to_thread(registry.auth.set_api_key, provider, key.strip())
        except (OSError, ValueError) as error:  # an unwritable or broken auth.json: nothing was changed
            self._warn(f"Could not save the key: {error}")
            return
        self._info(f"Saved the API key for {provider} in {registry.auth.path} (mode 0600)")
        await self._take_default_model(provider)

    async def _oauth_login(self, provider: str, flow: OAuthProvider) -> None:
        """Run ``provider``'s own login (a device code to enter on the web, a browser sign-in) and
        store its credential."""
        registry = self._session.model_registry
        mode = self.mode

        class LoginIO:
            async def prompt(
                self, message: str, placeholder: str = "", *, signal: AbortSignal | None = None
            ) -> str | None:
                # Part of the login, which reports itself as waiting (not as a plugin's question).
                shown = sanitize(placeholder) if placeholder else None
                return await mode.question(sanitize(message), placeholder=shown, signal=signal)

            async def select(self, message: str, options: list[str]) -> int | None:
                return await mode.pick(message, options)

            def notify(self, message: str) -> None:
                # Soft-wrapped: a sign-in URL stays one line the terminal can copy whole.
                mode.console.print(Text(message, style="pi.dim"), soft_wrap=True)

        default = registry.default_model_of(provider)
        self._info(f"Logging in to {flow.name}…")
        try:
            with self._logging_in(flow.name):
                credential = await flow.login(LoginIO(), default.base_url if default is not None else None)
            await asyncio.to_thread(registry.auth.set_oauth, provider, credential)
        except OAuthError as error:
            self._warn(f"{flow.name} login failed: {error}")
            return
        except (OSError, ValueError) as error:  # an unwritable or broken auth.json: nothing was changed
            self._warn(f"Could not save the login: {error}")
            return
        self._info(f"Logged in to {flow.name}; saved in {registry.auth.path} (mode 0600)")
        await self._take_default_model(provider)

    @contextlib.contextmanager
    def _logging_in(self, name: str) -> Iterator[None]:
        """While a login waits for the user: program status ``blocked`` (``auth``)."""
        status = self.mode.program_status
        status.set_blocked("login", Blocked(kind="auth", message=f"Log in to {name}"))
        try:
            yield
        finally:
            status.set_blocked("login", None)

    async def _take_default_model(self, provider: str) -> None:
        registry = self._session.model_registry
        if self._session.model is None:
            model = registry.default_model_of(provider)
            if model is None:
                self._info(f"Now name a model of {provider}: /model, or --model {provider}/ID next time")
                return
            await self._session.set_model(model, persist=True)  # pi too: a login's model is the default
            self._info(f"Model: {model.provider}/{model.id} (/model picks another)")

    async def cmd_logout(self, args: str) -> None:
        auth = self._session.model_registry.auth
        stored = sorted(await asyncio.to_thread(auth.read))
        if not stored:
            self._warn(f"No saved credentials in {auth.path}")
            return
        provider = args or await self._choose_provider(
            "Select provider to logout:", [(stored_id, stored_id) for stored_id in stored]
        )
        if provider is None:
            return
        if provider not in stored:
            self._warn(f"No saved credentials for {provider}")
            return
        await asyncio.to_thread(auth.remove, provider)
        self._info(f"Removed the credentials of {provider} from {auth.path}")

    async def _choose_provider(self, title: str, providers: list[tuple[str, str]]) -> str | None:
        """A provider's id picked from ``(id, row)`` pairs in pi's searchable provider list."""
        from pi_core.modes.interactive.provider_selector import ProviderList, ProviderSelector

        if not providers:
            self._warn("No providers known: add one in models.json")
            return None
        selector = ProviderSelector(
            ProviderList(providers), title, keymap=self.mode.keymap.keys, styles=lambda: self.mode.styles
        )
        chosen = await self.mode.show_selector(selector)
        return chosen if isinstance(chosen, str) else None
