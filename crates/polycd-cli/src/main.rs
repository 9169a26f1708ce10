fn main() {
    println!("polycd");
}
