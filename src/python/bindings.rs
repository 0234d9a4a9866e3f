//! The table of Python bindings: which extension functions and classes exist, and in which
//! public namespaces (`rt`, `rt.math`, `rt.nn`, ...) each one appears, under which name.
//!
//! Each file of pyfunctions ends with one [`bindings!`] table. A row registers the function or
//! class in the extension and names its namespaces:
//!
//! ```ignore
//! bindings! {
//!     fn sin => [rt, math];                   // rt.sin, rt.math.sin
//!     fn random_normal => [rt, random as normal]; // rt.random_normal, rt.random.normal
//!     fn gradcheck => [];                      // the extension only (used by the package)
//!     fn from_dlpack => [experimental.dlpack]; // a nested namespace: rt.experimental.dlpack
//!     class PyTape => [];
//! }
//! ```
//!
//! The rows of all files are published as `rustape._rustape._bindings`, a tuple of
//! `(name, ((namespace, exported_name), ...))`, one per row; `python/rustape/_export.py`
//! fills every namespace module from it (and from the Python compositions declared with
//! `@export` in `_ops.py`). So nothing else lists the ops: a row is the whole binding.
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyString, PyTuple};
use pyo3::PyClass;

/// Where one row's object appears: `(namespace, name there)`; the name is the object's own
/// unless the row says `namespace as name`.
pub type Namespaces<'a> = &'a [(&'static str, Option<&'static str>)];

/// The rows registered so far, in order (published by [`Table::publish`]).
#[derive(Default)]
pub struct Table {
    rows: Vec<(String, Vec<(&'static str, String)>)>,
}

impl Table {
    /// Adds a pyfunction to the module and a row for it (its Python name is its `__name__`, so
    /// `#[pyfunction(name = "where")] fn where_` is the row `fn where_` exporting `where`).
    pub fn function(
        &mut self,
        m: &Bound<'_, PyModule>,
        f: Bound<'_, PyCFunction>,
        namespaces: Namespaces,
    ) -> PyResult<()> {
        let name: String = f.getattr("__name__")?.extract()?;
        m.add_function(f)?;
        self.row(name, namespaces);
        Ok(())
    }

    /// Adds a class to the module and a row for it.
    pub fn class<T: PyClass>(
        &mut self,
        m: &Bound<'_, PyModule>,
        namespaces: Namespaces,
    ) -> PyResult<()> {
        m.add_class::<T>()?;
        self.row(T::NAME.to_string(), namespaces);
        Ok(())
    }

    /// Adds any other object (a dtype, the version string) to the module and a row for it.
    pub fn value<'py>(
        &mut self,
        m: &Bound<'py, PyModule>,
        name: &str,
        value: impl IntoPyObject<'py>,
        namespaces: Namespaces,
    ) -> PyResult<()> {
        m.add(name, value)?;
        self.row(name.to_string(), namespaces);
        Ok(())
    }

    fn row(&mut self, name: String, namespaces: Namespaces) {
        let exports = namespaces
            .iter()
            .map(|&(ns, alias)| (ns, alias.map_or_else(|| name.clone(), str::to_string)))
            .collect();
        self.rows.push((name, exports));
    }

    /// Checks that no name is bound twice (two rows for one function, or two objects under one
    /// name in a namespace) and publishes the table as the module's `_bindings`.
    pub fn publish(self, m: &Bound<'_, PyModule>) -> PyResult<()> {
        let mut seen = std::collections::HashSet::new();
        for (name, exports) in &self.rows {
            if !seen.insert(("", name.as_str())) {
                return Err(duplicate(format!(
                    "two rows bind the extension name {name:?}"
                )));
            }
            for (ns, exported) in exports {
                if !seen.insert((ns, exported.as_str())) {
                    return Err(duplicate(format!(
                        "two rows export {exported:?} in namespace {ns:?}"
                    )));
                }
            }
        }
        let py = m.py();
        let rows = self
            .rows
            .iter()
            .map(|(name, exports)| {
                let exports = exports
                    .iter()
                    .map(|(ns, exported)| (PyString::new(py, ns), PyString::new(py, exported)))
                    .collect::<Vec<_>>();
                (PyString::new(py, name), PyTuple::new(py, exports)?).into_pyobject(py)
            })
            .collect::<PyResult<Vec<_>>>()?;
        // Set directly (not `m.add`) so that `_bindings` stays out of the module's `__all__`.
        m.setattr("_bindings", PyTuple::new(py, rows)?)
    }
}

fn duplicate(message: String) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!("rustape._rustape bindings: {message}"))
}

/// The binding table of one file of pyfunctions: generates its `register(m, table)`, which
/// adds each row's function (`fn name`) or class (`class Type`) to the extension module and
/// records the namespaces the row names (`[rt, math, random as normal]`, dotted for a nested
/// one: `experimental.dlpack`; `[]`: the extension only). See the module docs.
macro_rules! bindings {
    ($($kind:ident $item:ident => [$($($ns:ident).+ $(as $alias:ident)?),* $(,)?];)*) => {
        /// Registers this file's bindings (its `bindings!` table) in the extension module.
        pub fn register(
            m: &pyo3::Bound<'_, pyo3::types::PyModule>,
            table: &mut $crate::python::bindings::Table,
        ) -> pyo3::PyResult<()> {
            $(
                $crate::python::bindings::binding_row!(
                    $kind $item,
                    m,
                    table,
                    &[$((stringify!($($ns).+), None $(.or(Some(stringify!($alias))))?)),*]
                );
            )*
            Ok(())
        }
    };
}

/// One row of [`bindings!`].
macro_rules! binding_row {
    (fn $f:ident, $m:ident, $table:ident, $namespaces:expr) => {
        $table.function($m, pyo3::wrap_pyfunction!($f, $m)?, $namespaces)?
    };
    (class $c:ident, $m:ident, $table:ident, $namespaces:expr) => {
        $table.class::<$c>($m, $namespaces)?
    };
}

pub(crate) use binding_row;
pub(crate) use bindings;
