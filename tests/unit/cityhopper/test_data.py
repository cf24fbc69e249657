"""Bundled data: the loaders see the 82 places and the board of the spec (section 1, CH-22..CH-26)."""

from shared.cityhopper import catalog


def test_82_places_with_12_capitals_and_5_islands() -> None:
    places = catalog.places()
    assert len(places) == 82
    assert sum(p.is_capital for p in places) == 12
    assert catalog.place("amsterdam").kind == "national_capital"
    assert {p.id for p in places if p.is_island} == {
        "texel",
        "vlieland",
        "terschelling",
        "ameland",
        "schiermonnikoog",
    }
    assert catalog.place("lauwersoog").population is None


def test_board_edges_reference_known_nodes() -> None:
    board = catalog.board()
    nodes = set(catalog.place_index()) | {a.id for a in board.airports}
    assert all(e.a in nodes and e.b in nodes for e in board.edges)
    assert len(board.edges_of_type("dike")) == 2  # CH-22
    assert {a.city for a in board.airports} == {p.id for p in catalog.places() if p.airport}  # CH-26
    assert board.edge("boat:den-helder--texel").fare_eur == 3  # CH-24, fare from the seed


def test_chance_deck_and_constants() -> None:
    deck = catalog.chance_deck()
    assert len(deck.cards) == 50 and deck.ticket_stock["FREE_BOAT"] == 4
    const = catalog.constants()
    assert const.distance_margin == 0.15
    assert const.categories[1] == "ROAD_DISTANCE" and const.categories[5] == "FACTS"


def test_loaders_are_cached() -> None:
    assert catalog.places() is catalog.places()
    assert catalog.board() is catalog.board()
