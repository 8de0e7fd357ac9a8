from handythermo import f_to_c


def test_f_to_c_more_1():
    assert f_to_c(-40) == -40


def test_f_to_c_more_2():
    assert f_to_c(0) == -18


def test_f_to_c_more_3():
    assert f_to_c(32) == 0


def test_f_to_c_more_4():
    assert f_to_c(100) == 37
