import pytest

from shared.eventstore.memory import InMemoryEventStore
from tests.contract_eventstore import EventStoreContract


class TestInMemoryEventStore(EventStoreContract):
    @pytest.fixture
    def store(self) -> InMemoryEventStore:
        return InMemoryEventStore()
