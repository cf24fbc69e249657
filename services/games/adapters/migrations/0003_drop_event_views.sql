-- Issue 19: a viewer's redacted copy of an event is derived from the stored event when it is read
-- (the engine's redact_event), no longer written per viewer per event.
DROP TABLE IF EXISTS games.event_views;
