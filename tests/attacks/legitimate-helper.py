"""Where a page starts and ends."""


def bounds(number, page_size):
    start = (number - 1) * page_size
    return start, start + page_size
