//! Reading and writing OBJ, OFF and STL — NOT YET IMPLEMENTED.
