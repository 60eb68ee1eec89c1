-- One phone is one device whatever the spelling of its push token (docs/delivery.md#devices). An APNs
-- token is hex: it is stored in lowercase, and a token registered as `apns` (App Store builds) and as
-- `apns_sandbox` (development builds) names the same phone, so it has one owner. `push_service` is the
-- service a token belongs to (`apns` for both APNs platforms, `fcm`), and a token is unique within it.

-- Rows that differ only by that spelling: the most recently registered is the phone's owner now and is
-- kept. The SNS endpoints of the rows dropped here are left in SNS, where no device row points to them.
DELETE FROM devices AS older
USING devices AS newer
WHERE older.platform <> 'fcm' AND newer.platform <> 'fcm'
  AND lower(older.token) = lower(newer.token)
  AND (newer.registered_at, newer.id) > (older.registered_at, older.id);

UPDATE devices SET token = lower(token) WHERE platform <> 'fcm' AND token <> lower(token);

ALTER TABLE devices ADD COLUMN push_service text NOT NULL
    GENERATED ALWAYS AS (CASE WHEN platform = 'fcm' THEN 'fcm' ELSE 'apns' END) STORED;
ALTER TABLE devices DROP CONSTRAINT devices_platform_token_key;
ALTER TABLE devices ADD CONSTRAINT devices_push_service_token_key UNIQUE (push_service, token);
ALTER TABLE devices ADD CONSTRAINT devices_apns_token_lowercase_hex
    CHECK (platform = 'fcm' OR token ~ '^[0-9a-f]+$');
