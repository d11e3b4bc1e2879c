import pytest

import flowvm.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_default_graph():
    """Each test starts with an empty default graph."""
    tf.reset_default_graph()
    yield
