import pytest

from shared.db import make_pool
from shared.eventstore.postgres import PostgresEventStore
from tests.contract_eventstore import EventStoreContract

pytestmark = pytest.mark.integration


class TestPostgresEventStore(EventStoreContract):
    @pytest.fixture
    def store(self, database_url: str):  # type: ignore[no-untyped-def]
        pool = make_pool(database_url, max_size=4)
        yield PostgresEventStore(pool, "games")
        pool.close()
