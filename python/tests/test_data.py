"""tf.data: sources, transformations, their static types and shapes, and
the values they produce, against Python's and NumPy's own computations and
the examples of TensorFlow's documentation."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from data_test_util import drain


def take_all(dataset):
    """Every element of a one-shot iterator over `dataset`, as NumPy values."""
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return drain(sess, nxt)


def test_from_tensor_slices_and_one_shot_iterator_end_with_out_of_range():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    ds = tf.data.Dataset.from_tensor_slices(x)
    assert ds.output_types == tf.float32
    assert ds.output_shapes.as_list() == [3]
    assert ds.output_classes is tf.Tensor
    got = take_all(ds)
    np.testing.assert_array_equal(np.stack(got), x)


def test_from_tensors_is_one_element_and_a_list_is_one_component():
    ds = tf.data.Dataset.from_tensors([1, 2, 3])
    assert ds.output_shapes.as_list() == [3]
    got = take_all(ds)
    assert len(got) == 1
    np.testing.assert_array_equal(got[0], [1, 2, 3])


def test_range_matches_python_range():
    for args in [(5,), (2, 5), (1, 10, 3), (5, 1, -2), (3, 3)]:
        ds = tf.data.Dataset.range(*args)
        assert ds.output_types == tf.int64 and ds.output_shapes.as_list() == []
        assert [int(v) for v in take_all(ds)] == list(range(*args)), args
    with pytest.raises(ValueError):
        tf.data.Dataset.range(1, 2, 3, 4)


def test_nested_structures_tuples_dicts_namedtuples():
    Point = collections.namedtuple("Point", ["x", "y"])
    a = np.arange(6).reshape(3, 2).astype(np.int32)
    b = np.array([b"u", b"v", b"w"])
    ds = tf.data.Dataset.from_tensor_slices({"a": a, "nested": (b, Point(np.arange(3.0), -np.arange(3.0)))})
    assert ds.output_types == {"a": tf.int32, "nested": (tf.string, Point(tf.float64, tf.float64))}
    assert ds.output_shapes["a"].as_list() == [2]
    got = take_all(ds)
    assert len(got) == 3
    for i, e in enumerate(got):
        np.testing.assert_array_equal(e["a"], a[i])
        assert e["nested"][0] == b[i]
        assert isinstance(e["nested"][1], Point)
        assert e["nested"][1].x == float(i) and e["nested"][1].y == -float(i)


def test_from_tensor_slices_checks_first_dimensions():
    with pytest.raises(ValueError):
        tf.data.Dataset.from_tensor_slices((np.zeros([3, 2]), np.zeros([4])))
    with pytest.raises(ValueError):
        tf.data.Dataset.from_tensor_slices(np.float32(1.0))


def test_zip_and_concatenate():
    a = tf.data.Dataset.range(1, 4)
    b = tf.data.Dataset.range(4, 7)
    c = tf.data.Dataset.range(7, 13, 2)
    z = tf.data.Dataset.zip((a, (b, c)))
    assert z.output_types == (tf.int64, (tf.int64, tf.int64))
    assert [tuple([int(x[0]), int(x[1][0]), int(x[1][1])]) for x in take_all(z)] == [(1, 4, 7), (2, 5, 9), (3, 6, 11)]
    # zip stops with the shortest
    assert len(take_all(tf.data.Dataset.zip((a, tf.data.Dataset.range(2))))) == 2
    assert [int(v) for v in take_all(a.concatenate(b))] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(TypeError):
        a.concatenate(tf.data.Dataset.from_tensor_slices(np.zeros(3, np.float32)))
    with pytest.raises(TypeError):
        tf.data.Dataset.zip([a, b])


def test_concatenate_keeps_the_most_specific_compatible_shape():
    a = tf.data.Dataset.from_tensors(np.zeros([2, 3], np.float32))
    b = tf.data.Dataset.from_tensors(np.zeros([2, 4], np.float32))
    assert a.concatenate(b).output_shapes.as_list() == [2, None]


def test_map_unpacks_tuples_and_captures_tensors():
    scale = tf.constant(10, dtype=tf.int64)
    ds = tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(5, 10)))
    ds = ds.map(lambda x, y: (x * scale + y, tf.cast(x, tf.float32) / 2.0))
    assert ds.output_types == (tf.int64, tf.float32)
    got = take_all(ds)
    assert [int(g[0]) for g in got] == [x * 10 + x + 5 for x in range(5)]
    np.testing.assert_allclose([g[1] for g in got], np.arange(5) / 2.0)


def test_map_on_dicts_and_a_returned_list_is_a_tuple():
    ds = tf.data.Dataset.from_tensor_slices({"f": np.arange(4.0, dtype=np.float32), "l": np.arange(4)})
    ds = ds.map(lambda d: [d["f"] * 2.0, d["l"] + 1])
    assert isinstance(ds.output_types, tuple)
    got = take_all(ds)
    np.testing.assert_allclose([g[0] for g in got], [0.0, 2.0, 4.0, 6.0])
    assert [int(g[1]) for g in got] == [1, 2, 3, 4]


def test_map_knows_the_static_shapes_inside_the_function():
    ds = tf.data.Dataset.from_tensor_slices(np.ones([5, 4, 3], np.float32))
    seen = []

    def f(x):
        seen.append(x.shape.as_list())
        return tf.reshape(x, [12])

    ds = ds.map(f)
    assert seen == [[4, 3]]
    assert ds.output_shapes.as_list() == [12]


def test_parallel_map_keeps_the_order():
    ds = tf.data.Dataset.range(200).map(lambda x: x * x, num_parallel_calls=8)
    assert [int(v) for v in take_all(ds)] == [x * x for x in range(200)]
    ds = tf.data.Dataset.range(50).map(lambda x: x + 1, num_parallel_calls=tf.data.experimental.AUTOTUNE)
    assert [int(v) for v in take_all(ds)] == list(range(1, 51))


def test_filter():
    ds = tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 3, 0))
    assert [int(v) for v in take_all(ds)] == [x for x in range(20) if x % 3 == 0]
    with pytest.raises(ValueError):
        tf.data.Dataset.range(3).filter(lambda x: x)


def test_batch_with_and_without_drop_remainder():
    ds = tf.data.Dataset.range(10).batch(4)
    assert ds.output_shapes.as_list() == [None]
    got = take_all(ds)
    assert [list(map(int, g)) for g in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    ds = tf.data.Dataset.range(10).batch(4, drop_remainder=True)
    assert ds.output_shapes.as_list() == [4]
    assert len(take_all(ds)) == 2
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(6).reshape(3, 2), np.arange(3.0))).batch(2)
    assert pairs.output_shapes[0].as_list() == [None, 2]
    got = take_all(pairs)
    np.testing.assert_array_equal(got[0][0], [[0, 1], [2, 3]])
    np.testing.assert_array_equal(got[1][1], [2.0])


def test_padded_batch_follows_the_documentation_example():
    # TensorFlow's documentation: range(1, 5).map(fill(x, x)).padded_batch(2, [None]).
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    ds = ds.padded_batch(2, padded_shapes=[None])
    got = take_all(ds)
    np.testing.assert_array_equal(got[0], [[1, 0], [2, 2]])
    np.testing.assert_array_equal(got[1], [[3, 3, 3, 0], [4, 4, 4, 4]])
    # A fixed padded length, a padding value and a tuple element.
    ds = tf.data.Dataset.zip((tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x)),
                              tf.data.Dataset.from_tensor_slices(np.array([b"1", b"2", b"3"]))))
    ds = ds.padded_batch(3, padded_shapes=([5], []), padding_values=(np.int64(-1), "?"), drop_remainder=True)
    assert ds.output_shapes[0].as_list() == [3, 5]
    got = take_all(ds)
    np.testing.assert_array_equal(got[0][0], [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1], [3, 3, 3, -1, -1]])
    assert list(got[0][1]) == [b"1", b"2", b"3"]
    with pytest.raises(ValueError):
        tf.data.Dataset.from_tensors(np.zeros([3], np.float32)).padded_batch(2, padded_shapes=[2])


def test_padded_batch_of_an_element_longer_than_its_padded_shape_fails_at_run_time():
    ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x)).padded_batch(2, [3])
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        sess.run(nxt)
        # TensorFlow's code and message: DataLoss, "Attempted to pad to a smaller size ..."
        with pytest.raises(tf.errors.DataLossError, match="smaller size"):
            sess.run(nxt)


def test_shuffle_is_a_permutation_seeded_and_reshuffled_each_epoch():
    def epochs(reshuffle, seed):
        tf.reset_default_graph()
        ds = tf.data.Dataset.range(30).shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle).repeat(2)
        vals = [int(v) for v in take_all(ds)]
        return vals[:30], vals[30:]

    a1, a2 = epochs(True, 7)
    assert sorted(a1) == list(range(30)) and sorted(a2) == list(range(30))
    assert a1 != list(range(30))
    assert a1 != a2  # a new order in the second epoch
    b1, b2 = epochs(True, 7)
    assert (a1, a2) == (b1, b2)  # the same seed, the same orders
    c1, c2 = epochs(False, 7)
    assert c1 == c2
    # A buffer of size k: element i comes out no earlier than i - k + 1.
    for pos, v in enumerate(a1):
        assert pos >= v - 9


def test_shuffle_follows_the_graph_seed():
    def order():
        tf.reset_default_graph()
        tf.set_random_seed(3)
        return [int(v) for v in take_all(tf.data.Dataset.range(20).shuffle(20))]

    assert order() == order()


def test_repeat_take_skip_shard_enumerate():
    r = tf.data.Dataset.range(5)
    assert [int(v) for v in take_all(r.repeat(3))] == list(range(5)) * 3
    assert [int(v) for v in take_all(r.repeat().take(12))] == (list(range(5)) * 3)[:12]
    assert [int(v) for v in take_all(r.take(2))] == [0, 1]
    assert [int(v) for v in take_all(r.take(-1))] == list(range(5))
    assert [int(v) for v in take_all(r.skip(3))] == [3, 4]
    assert [int(v) for v in take_all(r.skip(-1))] == []
    assert [int(v) for v in take_all(tf.data.Dataset.range(10).shard(3, 1))] == [1, 4, 7]
    got = take_all(tf.data.Dataset.from_tensor_slices(np.array([b"a", b"b"])).enumerate(start=5))
    assert [(int(i), s) for i, s in got] == [(5, b"a"), (6, b"b")]
    with pytest.raises(ValueError):
        r.shard(2, 2)


def test_flat_map_and_interleave_follow_the_documentation():
    ds = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    assert [int(v) for v in take_all(ds)] == [1, 2, 2, 3, 3, 3]
    # TensorFlow's documentation example of interleave.
    a = tf.data.Dataset.range(1, 6)
    ds = a.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert [int(v) for v in take_all(ds)] == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4,
                                              4, 5, 5, 5, 5, 5, 5]
    with pytest.raises(TypeError):
        tf.data.Dataset.range(3).flat_map(lambda x: x)


def test_unbatch_inverts_batch():
    ds = tf.data.Dataset.range(7).batch(3).unbatch()
    assert ds.output_shapes.as_list() == []
    assert [int(v) for v in take_all(ds)] == list(range(7))
    ds = tf.data.Dataset.range(7).batch(3).apply(tf.data.experimental.unbatch())
    assert [int(v) for v in take_all(ds)] == list(range(7))


def test_cache_replays_the_first_epoch():
    ds = tf.data.Dataset.range(4).map(lambda x: tf.random_uniform([])).cache().repeat(2)
    got = [float(v) for v in take_all(ds)]
    assert got[:4] == got[4:]
    ds = tf.data.Dataset.range(4).map(lambda x: tf.random_uniform([])).repeat(2)
    got = [float(v) for v in take_all(ds)]
    assert got[:4] != got[4:]


def test_cache_in_a_file(tmp_path):
    ds = tf.data.Dataset.range(6).map(lambda x: x * 3).cache(str(tmp_path / "cache")).repeat(2)
    assert [int(v) for v in take_all(ds)] == [0, 3, 6, 9, 12, 15] * 2


def test_prefetch_keeps_values_and_order():
    ds = tf.data.Dataset.range(100).map(lambda x: x * 2).prefetch(8)
    assert [int(v) for v in take_all(ds)] == [2 * x for x in range(100)]
    ds = tf.data.Dataset.range(10).prefetch(tf.data.experimental.AUTOTUNE)
    assert [int(v) for v in take_all(ds)] == list(range(10))


def test_experimental_transformations():
    ds = tf.data.Dataset.range(10).apply(tf.data.experimental.map_and_batch(lambda x: x * 10, 4))
    got = take_all(ds)
    assert [list(map(int, g)) for g in got] == [[0, 10, 20, 30], [40, 50, 60, 70], [80, 90]]
    ds = tf.data.Dataset.range(10).apply(tf.data.experimental.map_and_batch(lambda x: x, 4, drop_remainder=True))
    assert ds.output_shapes.as_list() == [4]
    ds = tf.data.Dataset.range(6).apply(tf.data.experimental.shuffle_and_repeat(6, count=2, seed=1))
    got = [int(v) for v in take_all(ds)]
    assert sorted(got[:6]) == list(range(6)) and sorted(got[6:]) == list(range(6))
    ds = tf.data.Dataset.range(1, 4).apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2))
    assert [int(v) for v in take_all(ds)] == [1, 2, 1, 2, 3, 3]


def test_options_are_kept_and_merged():
    opts = tf.data.Options()
    opts.experimental_optimization.map_parallelization = True
    opts.experimental_threading.private_threadpool_size = 4
    ds = tf.data.Dataset.range(3).with_options(opts).map(lambda x: x + 1)
    assert ds.options().experimental_threading.private_threadpool_size == 4
    assert ds.options().experimental_optimization.map_parallelization is True
    assert [int(v) for v in take_all(ds)] == [1, 2, 3]
    with pytest.raises(AttributeError):
        opts.no_such_option = 1


def test_list_files(tmp_path):
    for name in ["b.txt", "a.txt", "c.dat"]:
        (tmp_path / name).write_text(name)
    ds = tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    assert [v.decode() for v in take_all(ds)] == [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    shuffled = [v.decode() for v in take_all(tf.data.Dataset.list_files(str(tmp_path / "*"), seed=4))]
    assert sorted(shuffled) == sorted(str(tmp_path / n) for n in ["a.txt", "b.txt", "c.dat"])
    empty = tf.data.Dataset.list_files(str(tmp_path / "*.none"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        take_all(empty)
