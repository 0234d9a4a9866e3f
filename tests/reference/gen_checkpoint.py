"""TensorFlow 2.21's checkpoints, and what TensorFlow restores from rustape's.

Writes `data/checkpoint_tf/keras-1.*` (a Keras 3 Sequential + Adam through
`tf.train.Checkpoint.save`) and `data/checkpoint_tf/module.*` (a `tf.Module` of variables
through `write`), with the values they hold in `checkpoint.npz` (`tf_*` arrays). Then restores
the checkpoints rustape wrote for the same programs (`data/checkpoint_rt/`, made by
tests/python/test_checkpoint.py) into fresh TensorFlow objects and stores what TensorFlow
read (`rt_*` arrays).
"""

from __future__ import annotations

import os
import shutil

import keras
import numpy as np
import tensorflow as tf
from checkpoint_program import keras_program, module_program

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")


def keras_arrays(prefix: str, model: keras.Model, opt: keras.optimizers.Optimizer) -> dict:
    out = {f"{prefix}_model_{i}": np.asarray(w) for i, w in enumerate(model.get_weights())}
    out.update({f"{prefix}_opt_{i}": np.asarray(v) for i, v in enumerate(opt.variables)})
    return out


def module_arrays(prefix: str, m: tf.Module) -> dict:
    return {
        f"{prefix}_module_v": m.v.numpy(),
        f"{prefix}_module_items0": m.items[0].numpy(),
        f"{prefix}_module_items1": m.items[1].numpy(),
        f"{prefix}_module_table_a": m.table["a"].numpy(),
    }


def main() -> None:
    out: dict[str, np.ndarray] = {}
    tf_dir = os.path.join(DATA, "checkpoint_tf")
    shutil.rmtree(tf_dir, ignore_errors=True)
    model, opt = keras_program(tf, keras)
    tf.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(tf_dir, "keras"))
    out.update(keras_arrays("tf", model, opt))
    m = module_program(tf)
    tf.train.Checkpoint(mod=m, extra=tf.Variable(np.float64(0.125))).write(
        os.path.join(tf_dir, "module")
    )
    out.update(module_arrays("tf", m))

    rt_dir = os.path.join(DATA, "checkpoint_rt")
    if os.path.isdir(rt_dir):
        # Fresh objects with other values, then TensorFlow restores rustape's files.
        model, opt = keras_program(tf, keras, shift=1.0)
        status = tf.train.Checkpoint(model=model, optimizer=opt).restore(
            tf.train.latest_checkpoint(rt_dir)
        )
        status.assert_existing_objects_matched()
        out.update(keras_arrays("rt", model, opt))
        m = module_program(tf, shift=1.0)
        extra = tf.Variable(np.float64(9.0))
        tf.train.Checkpoint(mod=m, extra=extra).read(
            os.path.join(rt_dir, "module")
        ).assert_consumed()
        out.update(module_arrays("rt", m))
        out["rt_extra"] = extra.numpy()
    np.savez(os.path.join(HERE, "checkpoint.npz"), **out)


if __name__ == "__main__":
    main()
