//! (filled in by the op work for issue 2)
