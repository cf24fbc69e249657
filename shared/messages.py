"""Which events flow to which service: the routing table of the outbox.

Jobs are named by dotted path so that no service imports another's code.
"""

from __future__ import annotations

from typing import Any

from shared.eventstore.model import OutboxMessage

QUEUES = ("games", "matchmaking", "questions", "ratings", "bots")

# event type -> (queue, job function) of every consumer
ROUTES: dict[str, tuple[tuple[str, str], ...]] = {
    # questions: the game's last question is no longer in play (practice may serve and grade it again)
    "GameFinished": (
        ("ratings", "services.ratings.entrypoints.jobs.handle_message"),
        ("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),
        ("questions", "services.questions.entrypoints.jobs.handle_message"),
    ),
    "GameAborted": (
        ("ratings", "services.ratings.entrypoints.jobs.handle_message"),
        ("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),
        ("questions", "services.questions.entrypoints.jobs.handle_message"),
    ),
    "GameVoided": (("ratings", "services.ratings.entrypoints.jobs.handle_message"),),
    "CreateGameRequested": (("games", "services.games.entrypoints.jobs.handle_message"),),
    "GameCreatedForTable": (("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),),
    # the games service refused a CreateGameRequested (e.g. options the table size does not allow)
    "GameCreationRefused": (("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),),
    # a league table was forfeited (or its player withdrew) while its game runs: the game is aborted, so
    # its later result neither counts in the league nor gets rated
    "GameAbortRequested": (("games", "services.games.entrypoints.jobs.handle_message"),),
    "QuestionRequested": (("questions", "services.questions.entrypoints.jobs.handle_message"),),
    "QuestionDrawn": (("games", "services.games.entrypoints.jobs.handle_message"),),
    # a bot seat is to move (games -> the bots worker, which plays it through the public API)
    "BotTurnStarted": (("bots", "services.bots.entrypoints.jobs.handle_message"),),
    # identity (games service): names shown next to player ids in leaderboards, charts and standings
    "PlayerRegistered": (
        ("ratings", "services.ratings.entrypoints.jobs.handle_message"),
        ("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),
    ),
    "PlayerRenamed": (
        ("ratings", "services.ratings.entrypoints.jobs.handle_message"),
        ("matchmaking", "services.matchmaking.entrypoints.jobs.handle_message"),
    ),
}


def outbox_for(message_type: str, message_id: str, body: dict[str, Any]) -> list[OutboxMessage]:
    """Outbox rows for a message: one per consumer listed in ROUTES."""
    envelope = {"message_id": message_id, "type": message_type, "body": body}
    return [OutboxMessage(queue, job, envelope) for queue, job in ROUTES.get(message_type, ())]
