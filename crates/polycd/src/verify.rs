//! Independent checks of query results (certificates) — see issue 8. NOT YET IMPLEMENTED.
