"""`rt.data.Options`: the settings TensorFlow's pipelines take (`Dataset.with_options`).

rustape runs a pipeline in the calling thread, in order, so these settings change nothing;
programs that set them run unchanged.
"""

from __future__ import annotations

from typing import Any


class OptionGroup:
    """A group of settings (`options.threading`, `options.experimental_optimization`, ...):
    any attribute may be set; unset ones read as None.

    >>> import rustape as rt
    >>> options = rt.data.Options()
    >>> options.threading.private_threadpool_size = 4
    >>> options.threading.private_threadpool_size, options.threading.max_intra_op_parallelism
    (4, None)
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def __repr__(self) -> str:
        return f"OptionGroup({vars(self)})"


class Options:
    """Settings of a dataset's pipeline (TensorFlow's `tf.data.Options`).

    >>> import rustape as rt
    >>> options = rt.data.Options()
    >>> options.deterministic = False
    >>> options.experimental_distribute.auto_shard_policy = rt.data.experimental.AutoShardPolicy.OFF
    >>> ds = rt.data.Dataset.range(3).with_options(options)
    >>> ds.options().deterministic
    False
    """

    def __init__(self) -> None:
        self.deterministic: bool | None = None
        self.experimental_deterministic: bool | None = None
        self.experimental_slack: bool | None = None
        self.experimental_external_state_policy: Any = None
        self.experimental_warm_start: bool | None = None
        self.experimental_symbolic_checkpoint: bool | None = None
        self.autotune = OptionGroup()
        self.experimental_distribute = OptionGroup()
        self.experimental_optimization = OptionGroup()
        self.threading = OptionGroup()

    def merge(self, options: Options) -> Options:
        """These settings with `options`' set ones on top.

        >>> import rustape as rt
        >>> a, b = rt.data.Options(), rt.data.Options()
        >>> b.deterministic = True
        >>> a.merge(b).deterministic
        True
        """
        merged = Options()
        for source in (self, options):
            for key, value in vars(source).items():
                if isinstance(value, OptionGroup):
                    vars(getattr(merged, key)).update(vars(value))
                elif value is not None:
                    setattr(merged, key, value)
        return merged
