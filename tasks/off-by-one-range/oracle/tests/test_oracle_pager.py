import pytest

from pager import get_page, page_count


@pytest.mark.parametrize("n_items", [0, 1, 5, 6, 7, 12])
@pytest.mark.parametrize("size", [1, 2, 3, 6])
def test_pages_partition_items(n_items, size):
    items = list(range(n_items))
    pages = [get_page(items, n, size) for n in range(1, page_count(n_items, size) + 1)]
    assert [x for p in pages for x in p] == items
    assert all(len(p) == size for p in pages[:-1])
    assert all(1 <= len(p) <= size for p in pages)


def test_page_past_the_end_is_empty():
    assert get_page([1, 2, 3], 5, 2) == []


def test_returns_a_new_list():
    items = [1, 2, 3]
    page = get_page(items, 1, 3)
    assert page == items and page is not items


@pytest.mark.parametrize("number, size", [(0, 2), (-1, 2), (1, 0)])
def test_invalid_arguments(number, size):
    with pytest.raises(ValueError):
        get_page([1, 2, 3], number, size)
