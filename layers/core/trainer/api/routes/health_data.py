"""The phone's health data (docs/health-data.md): samples from HealthKit or Health Connect in batches, the
consent per type of data (a special category of personal data, GDPR article 9), and what is stored. The
work is trainer.services.health's. (`GET /health` itself is the liveness check, trainer.api.routes.health.)
"""

from __future__ import annotations

from fastapi import APIRouter

from trainer.api.errors import ApiError
from trainer.api.health_schemas import (
    HealthConsent,
    HealthConsentResponse,
    HealthConsentUpdate,
    HealthSampleBatch,
    HealthSamplesStored,
    HealthStatus,
    StoredKind,
)
from trainer.api.openapi import AUTHENTICATED, DATABASE, JSON_BODY, error_responses
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId
from trainer.api.routes.user_data import user_data

router = APIRouter(prefix="/health", tags=["health data"])

SAMPLES_PATH = "/health/samples"
SAMPLES_MAX_BYTES = 2_000_000
"""A batch's body may be this large (every other route: TRAINER_MAX_BODY_BYTES): 1,000 sleep sessions with
their stages do not fit in 256 KB."""
CONSENT_REQUIRED = {409: ("consent_required",)}


@router.post(
    "/samples",
    response_model=HealthSamplesStored,
    responses=error_responses(AUTHENTICATED, JSON_BODY, CONSENT_REQUIRED, DATABASE),
)
async def send_health_samples(
    container: ContainerDep, user_id: RegisteredUserId, batch: HealthSampleBatch
) -> HealthSamplesStored:
    """Stores a batch of at most 1,000 samples, whole or not at all. A sample whose `sample_id` is already
    stored (a window sent again) changes nothing and counts as a duplicate. `409 consent_required` (nothing
    stored) when a sample's type has no consent."""
    from trainer.services.health import ConsentRequired, SampleRow

    rows = [
        SampleRow(
            sample_id=s.sample_id,
            kind=s.type,
            start_at=s.start,
            end_at=s.end,
            value=s.value,
            unit=s.unit,
            source=s.source,
            details=s.details(),
        )
        for s in batch.samples
    ]
    try:
        outcome = await user_data(container, user_id).health.store(batch.platform, rows)
    except ConsentRequired as exc:
        raise ApiError(409, "consent_required", str(exc)) from None
    return HealthSamplesStored(
        received=outcome.received, stored=outcome.stored, duplicates=outcome.duplicates
    )


@router.get(
    "/consent", response_model=HealthConsentResponse, responses=error_responses(AUTHENTICATED, DATABASE)
)
async def get_health_consent(container: ContainerDep, user_id: UserId) -> HealthConsentResponse:
    """The caller's consent per type of health data (none is granted until the caller grants it)."""
    states = await user_data(container, user_id).health.consents()
    return HealthConsentResponse(
        consents=[HealthConsent.model_validate(s, from_attributes=True) for s in states], deleted_samples=0
    )


@router.put(
    "/consent",
    response_model=HealthConsentResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, DATABASE),
)
async def update_health_consent(
    container: ContainerDep, user_id: RegisteredUserId, update: HealthConsentUpdate
) -> HealthConsentResponse:
    """Grants or withdraws consent per type; withdrawing deletes that type's samples at once (the count is
    `deleted_samples`)."""
    change = await user_data(container, user_id).health.set_consents(update.grants())
    return HealthConsentResponse(
        consents=[HealthConsent.model_validate(s, from_attributes=True) for s in change.consents],
        deleted_samples=sum(change.deleted.values()),
    )


@router.get("/status", response_model=HealthStatus, responses=error_responses(AUTHENTICATED, DATABASE))
async def get_health_status(container: ContainerDep, user_id: UserId) -> HealthStatus:
    """The consents, and per type stored how many samples and the newest one's end (where a phone that
    lost its own sync anchor starts again)."""
    from trainer.domain.health_data import RETENTION_DAYS

    async with user_data(container, user_id).reading() as data:
        states = await data.health.consents()
        kinds = await data.health.stored_kinds()
    return HealthStatus(
        consents=[HealthConsent.model_validate(s, from_attributes=True) for s in states],
        stored=[StoredKind(type=k["kind"], samples=k["samples"], newest_end=k["newest_end"]) for k in kinds],
        retention_days=RETENTION_DAYS,
    )
