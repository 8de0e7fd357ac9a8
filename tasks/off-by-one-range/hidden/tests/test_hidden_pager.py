from pager import get_page, page_count


def test_page_size_one():
    assert [get_page("xyz", n, 1) for n in (1, 2, 3)] == [["x"], ["y"], ["z"]]


def test_pages_cover_all_items():
    items = list(range(23))
    pages = [get_page(items, n, 5) for n in range(1, page_count(23, 5) + 1)]
    assert [x for p in pages for x in p] == items
