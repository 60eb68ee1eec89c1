"""The settings screens (docs/api.md#settings-screens): profile, goals, preferences, and locations with their
equipment. Each route calls the same user-data service the chat's tools call (trainer.services), so what a
screen changes is what the chat reads next, and the other way round. Another user's preference or location is
`404`, like one that does not exist."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Response

from trainer.api.errors import ApiError
from trainer.api.me_schemas import (
    CategoryGoal,
    Goals,
    GoalsResponse,
    GoalsUpdate,
    Location,
    LocationCreate,
    LocationList,
    LocationResponse,
    LocationUpdate,
    MuscleGoal,
    PreferenceCreate,
    PreferenceList,
    PreferenceResponse,
    Profile,
    ProfileResponse,
    ProfileUpdate,
    UserPreference,
)
from trainer.api.openapi import AUTHENTICATED, DATABASE, JSON_BODY, error_responses
from trainer.api.routes import ContainerDep, RegisteredUserId, UserId
from trainer.api.routes.user_data import user_data

if TYPE_CHECKING:
    from trainer.services.rows import Row
    from trainer.services.user_data import UserData

router = APIRouter(prefix="/me", tags=["settings"])

LOCATION_SCOPED = {404: ("location_not_found",)}
PREFERENCE_SCOPED = {404: ("preference_not_found",)}


def _invalid(code: str, exc: Exception) -> ApiError:
    return ApiError(422, code, str(exc))


# --- profile --------------------------------------------------------------------------------------


async def _profile(data: UserData) -> Profile:
    from trainer.domain.onboarding import profile_age
    from trainer.sources.formatters import zone

    async with data.reading() as reads:
        row = await reads.profile.get() or {}
        settings = await reads.settings.get()
        active = await reads.preferences.active()
    today = datetime.now(UTC).astimezone(zone(settings.timezone)).date()
    return Profile.model_validate(
        {
            **{name: row.get(name) for name in Profile.model_fields},
            "age": profile_age(row, today),
            "no_limitations": bool(row.get("no_limitations")),
            "available_days": settings.preferred_days,
            "injuries": [p for p in active if p["type"] == "injury"],
        }
    )


@router.get("/profile", response_model=ProfileResponse, responses=error_responses(AUTHENTICATED, DATABASE))
async def get_profile(container: ContainerDep, user_id: UserId) -> ProfileResponse:
    """The profile screen: body stats, training profile, available days and injuries."""
    return ProfileResponse(profile=await _profile(user_data(container, user_id)))


@router.patch(
    "/profile",
    response_model=ProfileResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_profile",)}, DATABASE),
)
async def update_profile(
    container: ContainerDep, user_id: RegisteredUserId, update: ProfileUpdate
) -> ProfileResponse:
    """Changes the fields given (`null` clears one) and answers with the whole profile."""
    from trainer.services.errors import UserDataError

    given = {name: getattr(update, name) for name in update.model_fields_set}
    if "no_limitations" in given:
        given["no_limitations"] = bool(given["no_limitations"])
    sets_days = "available_days" in given
    days = given.pop("available_days", None)
    data = user_data(container, user_id)
    try:
        async with data.transaction() as tx:
            if given:
                await tx.profile.update(**given)
            if sets_days:
                await tx.settings.update(preferred_days=days or [])
    except UserDataError as exc:
        raise _invalid("invalid_profile", exc) from None
    return ProfileResponse(profile=await _profile(data))


# --- goals ----------------------------------------------------------------------------------------


def _percent(weight: Any) -> float:
    return round(float(weight) * 100, 3)


async def _goals(data: UserData) -> Goals:
    async with data.reading() as reads:
        categories = await reads.goals.categories()
        muscles = await reads.goals.muscles()
    return Goals(
        categories=[
            CategoryGoal(
                category=r["category"], description=r["description"], percentage=_percent(r["weight"])
            )
            for r in categories
        ],
        muscles=[MuscleGoal(muscle=r["muscle"], percentage=_percent(r["weight"])) for r in muscles],
    )


@router.get("/goals", response_model=GoalsResponse, responses=error_responses(AUTHENTICATED, DATABASE))
async def get_goals(container: ContainerDep, user_id: UserId) -> GoalsResponse:
    """Category and muscle goals as percentages."""
    return GoalsResponse(goals=await _goals(user_data(container, user_id)))


@router.put(
    "/goals",
    response_model=GoalsResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_goals",)}, DATABASE),
)
async def put_goals(container: ContainerDep, user_id: RegisteredUserId, update: GoalsUpdate) -> GoalsResponse:
    """Replaces the category goals, the muscle goals, or both (each list given), in one transaction."""
    from trainer.services.errors import UserDataError

    data = user_data(container, user_id)
    try:
        async with data.transaction() as tx:
            if update.categories:
                await tx.goals.set_categories([goal.model_dump() for goal in update.categories])
            if update.muscles:
                await tx.goals.set_muscles({str(name): share for name, share in update.muscles.items()})
    except UserDataError as exc:
        raise _invalid("invalid_goals", exc) from None
    return GoalsResponse(goals=await _goals(data))


# --- preferences ----------------------------------------------------------------------------------


@router.get("/preferences", response_model=PreferenceList, responses=error_responses(AUTHENTICATED, DATABASE))
async def list_preferences(container: ContainerDep, user_id: UserId) -> PreferenceList:
    """The active preferences (what the workouts honour now), oldest first."""
    rows = await user_data(container, user_id).preferences.active()
    return PreferenceList(preferences=[UserPreference.model_validate(row) for row in rows])


@router.post(
    "/preferences",
    status_code=201,
    response_model=PreferenceResponse,
    responses=error_responses(AUTHENTICATED, JSON_BODY, {422: ("invalid_preference",)}, DATABASE),
)
async def create_preference(
    container: ContainerDep, user_id: RegisteredUserId, body: PreferenceCreate
) -> PreferenceResponse:
    """Adds a preference (an injury, a dislike, a time limit...)."""
    from trainer.services.errors import UserDataError

    try:
        created = await user_data(container, user_id).preferences.create(**body.model_dump())
    except UserDataError as exc:
        raise _invalid("invalid_preference", exc) from None
    return PreferenceResponse(preference=UserPreference.model_validate(created.model_dump()))


@router.delete(
    "/preferences/{preference_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(AUTHENTICATED, PREFERENCE_SCOPED, DATABASE),
)
async def delete_preference(container: ContainerDep, user_id: UserId, preference_id: str) -> Response:
    """Removes one of the caller's preferences."""
    if await user_data(container, user_id).preferences.delete(preference_id) is None:
        raise ApiError(404, "preference_not_found", "Preference not found.")
    return Response(status_code=204)


# --- locations ------------------------------------------------------------------------------------


def _location(row: Row) -> Location:
    return Location.model_validate(row)


@router.get("/locations", response_model=LocationList, responses=error_responses(AUTHENTICATED, DATABASE))
async def list_locations(container: ContainerDep, user_id: UserId) -> LocationList:
    """Every location with its equipment, the current one first."""
    rows = await user_data(container, user_id).locations.all()
    return LocationList(locations=[_location(row) for row in rows])


@router.post(
    "/locations",
    status_code=201,
    response_model=LocationResponse,
    responses=error_responses(
        AUTHENTICATED, JSON_BODY, {409: ("location_exists",), 422: ("invalid_location",)}, DATABASE
    ),
)
async def create_location(
    container: ContainerDep, user_id: RegisteredUserId, body: LocationCreate
) -> LocationResponse:
    """Adds a location with its equipment (`current`: workouts are built for it from now on)."""
    from trainer.services.errors import UserDataConflict, UserDataError

    try:
        row = await user_data(container, user_id).locations.create(
            body.name,
            description=body.description,
            equipment=[item.model_dump(exclude_none=True) for item in body.equipment],
            make_current=body.current,
        )
    except UserDataConflict as exc:
        raise ApiError(409, "location_exists", str(exc)) from None
    except UserDataError as exc:
        raise _invalid("invalid_location", exc) from None
    return LocationResponse(location=_location(row))


@router.patch(
    "/locations/{location_id}",
    response_model=LocationResponse,
    responses=error_responses(
        AUTHENTICATED,
        JSON_BODY,
        LOCATION_SCOPED,
        {409: ("location_exists",), 422: ("invalid_location",)},
        DATABASE,
    ),
)
async def update_location(
    container: ContainerDep, user_id: UserId, location_id: str, update: LocationUpdate
) -> LocationResponse:
    """Renames it, changes its description, or replaces its equipment (the fields given; a `null`
    name leaves it as it is)."""
    from trainer.services.errors import UserDataConflict, UserDataError

    changes: dict[str, Any] = {}
    for name in update.model_fields_set:
        value = getattr(update, name)
        if name == "name" and value is None:
            continue
        if name == "equipment":
            value = [item.model_dump(exclude_none=True) for item in value or []]
        changes[name] = value
    try:
        row = await user_data(container, user_id).locations.update(location_id, **changes)
    except UserDataConflict as exc:
        raise ApiError(409, "location_exists", str(exc)) from None
    except UserDataError as exc:
        raise _invalid("invalid_location", exc) from None
    if row is None:
        raise ApiError(404, "location_not_found", "Location not found.")
    return LocationResponse(location=_location(row))


@router.delete(
    "/locations/{location_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(AUTHENTICATED, LOCATION_SCOPED, DATABASE),
)
async def delete_location(container: ContainerDep, user_id: UserId, location_id: str) -> Response:
    """Removes a location (the current one too: then none is current)."""
    if not await user_data(container, user_id).locations.delete(location_id):
        raise ApiError(404, "location_not_found", "Location not found.")
    return Response(status_code=204)


@router.post(
    "/locations/{location_id}/current",
    response_model=LocationResponse,
    responses=error_responses(AUTHENTICATED, LOCATION_SCOPED, DATABASE),
)
async def make_location_current(
    container: ContainerDep, user_id: UserId, location_id: str
) -> LocationResponse:
    """Makes it the current location, as the chat's `set_current_location` does."""
    from trainer.services.errors import UserDataError

    data = user_data(container, user_id)
    if await data.locations.get(location_id) is None:
        raise ApiError(404, "location_not_found", "Location not found.")
    try:
        row = await data.locations.set_current(location_id=location_id)
    except UserDataError:
        raise ApiError(404, "location_not_found", "Location not found.") from None
    return LocationResponse(location=_location(row))
