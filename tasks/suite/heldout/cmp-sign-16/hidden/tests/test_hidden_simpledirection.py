from simpledirection import sign_list


def test_sign_list_more_1():
    assert sign_list([0]) == [0]
