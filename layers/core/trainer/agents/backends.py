"""The model each registry agent runs on: a `StructuredModel` (trainer.providers.ports) and a model id per
model role. The composition root (trainer.container.build_backends) picks the adapters from settings:
Anthropic (trainer.providers.anthropic), OpenAI (trainer.providers.openai) or the offline implementations
(trainer.offline.structured)."""

from __future__ import annotations

from dataclasses import dataclass

from trainer.agents.definitions import ModelRole
from trainer.providers.ports import Provider, StructuredModel
from trainer.settings import ModelSettings

OFFLINE_MODEL = "offline"


@dataclass(frozen=True)
class ModelChoice:
    model: StructuredModel
    model_id: str
    effort: str | None = None
    """The role's thinking effort (TRAINER_MAIN_EFFORT / TRAINER_LIGHT_EFFORT); models that do not think
    adaptively ignore it."""


@dataclass(frozen=True)
class Backends:
    """The backend and model id of each model role."""

    main: ModelChoice
    light: ModelChoice

    def for_role(self, role: ModelRole) -> ModelChoice:
        return self.main if role == "main" else self.light

    @classmethod
    def single(cls, model: StructuredModel, model_id: str = OFFLINE_MODEL) -> Backends:
        choice = ModelChoice(model, model_id)
        return cls(choice, choice)


def agent_provider(settings: ModelSettings) -> Provider:
    """TRAINER_AGENT_PROVIDER, or with `auto`: Anthropic with its key, else OpenAI with its key, else
    offline."""
    chosen = settings.agent_provider
    if chosen == "auto":
        if settings.anthropic_api_key is not None:
            return "anthropic"
        return "openai" if settings.openai_api_key is not None else "offline"
    return chosen
