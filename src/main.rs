//! The `planc` command line: a thin shell over the library.

fn main() {
    std::process::exit(2);
}
