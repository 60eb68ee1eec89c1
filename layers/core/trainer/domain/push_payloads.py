"""The day's workout as an SNS mobile-push message and as an SMS (pure).

SNS `Publish` with `MessageStructure=json` takes one JSON object whose keys name the platforms and whose
values are the platform payloads encoded as strings: `APNS` / `APNS_SANDBOX` an APNs payload
(`{"aps": {"alert": {"title", "body"}, "sound", "thread-id"}, ...custom keys}`), `GCM` an FCM HTTP v1
message under the top-level key `fcmV1Message` (`{"fcmV1Message": {"message": {"notification": {...},
"data": {...}}}}`, data values all strings), and `default` the text for any other. APNs and FCM refuse
payloads over 4,096 bytes, so the alert body is the start of the day's message, cut to fit; the whole
message is one tap away (the deep link). An SMS carries the whole message, at most 1,600 characters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

Platform = Literal["apns", "apns_sandbox", "fcm"]

SNS_KEYS: dict[str, str] = {"apns": "APNS", "apns_sandbox": "APNS_SANDBOX", "fcm": "GCM"}
"""The MessageStructure=json key of each device platform."""
PAYLOAD_LIMIT_BYTES = 4096
"""APNs' and FCM's largest notification payload."""
BODY_LIMIT_CHARS = 1000
"""The longest alert body: a lock screen shows a few lines; the deep link opens the rest."""
SMS_LIMIT = 1600
THREAD_ID = "daily-workout"
DEEP_LINK_SCHEME = "trainer://workouts/"
ELLIPSIS = "…"


def deep_link(workout_id: str) -> str:
    return f"{DEEP_LINK_SCHEME}{workout_id}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at a line break when one is near, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - len(ELLIPSIS))]
    newline = cut.rfind("\n")
    if newline >= limit // 2:
        cut = cut[:newline]
    return cut.rstrip() + ELLIPSIS


def apns_payload(title: str, body: str, link: str, data: Mapping[str, str]) -> dict[str, Any]:
    return {
        "aps": {"alert": {"title": title, "body": body}, "sound": "default", "thread-id": THREAD_ID},
        "deep_link": link,
        **dict(data),
    }


def fcm_payload(title: str, body: str, link: str, data: Mapping[str, str]) -> dict[str, Any]:
    return {
        "fcmV1Message": {
            "message": {
                "notification": {"title": title, "body": body},
                "data": {"deep_link": link, **{k: str(v) for k, v in data.items()}},
                "android": {"priority": "high", "notification": {"tag": THREAD_ID}},
            }
        }
    }


def platform_payload(
    platform: Platform, title: str, body: str, link: str, data: Mapping[str, str]
) -> dict[str, Any]:
    if platform == "fcm":
        return fcm_payload(title, body, link, data)
    return apns_payload(title, body, link, data)


def push_message(
    platform: Platform, title: str, message: str, link: str, data: Mapping[str, str] | None = None
) -> str:
    """The SNS `Message` (MessageStructure=json) for one device: its platform's payload within
    PAYLOAD_LIMIT_BYTES, the alert body the start of `message`."""
    data = dict(data or {})
    title = _cut(title.strip() or "Today's workout", 120)
    limit = BODY_LIMIT_CHARS
    while True:
        body = _cut(message.strip(), limit)
        payload = _json(platform_payload(platform, title, body, link, data))
        if len(payload.encode("utf-8")) <= PAYLOAD_LIMIT_BYTES or limit <= 40:
            break
        limit = limit * 3 // 4
    return _json({"default": body, SNS_KEYS[platform]: payload})


def sms_text(message: str) -> str:
    """The whole message as an SMS, within SMS_LIMIT characters (the app's deep link is no use in a
    text: the message itself is the workout)."""
    return _cut(message.strip(), SMS_LIMIT)
