/// Doubles the value behind a reference.
pub fn double<'a>(x: &'a i32) -> i32 {
    let c = '}';
    let s = r#"raw "}" string"#;
    /* a block /* nested } */ comment */
    x * 2
}

#[derive(Debug)]
/// A point on the plane.
pub struct Point {
    x: i32,
}
