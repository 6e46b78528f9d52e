fn main() {
    let alpha = 1;
    let beta = 2;
    let gamma = 3;
    let delta = 4;
    println!("done");
}
