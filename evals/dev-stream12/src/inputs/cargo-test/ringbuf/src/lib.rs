pub struct Ring { buf: Vec<i32>, head: usize, len: usize }

impl Ring {
    pub fn new(cap: usize) -> Self { Ring { buf: vec![0; cap], head: 0, len: 0 } }
    pub fn push(&mut self, v: i32) {
        let cap = self.buf.len();
        let idx = (self.head + self.len) % cap;
        self.buf[idx] = v;
        if self.len < cap { self.len += 1 } else { self.head = (self.head + 1) % cap }
    }
    pub fn to_vec(&self) -> Vec<i32> {
        (0..self.len).map(|i| self.buf[(self.head + i) % self.buf.len()]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_1_push_1() {
        let mut r = Ring::new(1);
        for v in 0..1 { r.push(v) }
        let want: Vec<i32> = ((1 - (1).min(1))..1).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_1_push_4() {
        let mut r = Ring::new(1);
        for v in 0..4 { r.push(v) }
        let want: Vec<i32> = ((4 - (1).min(4))..4).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_2_push_2() {
        let mut r = Ring::new(2);
        for v in 0..2 { r.push(v) }
        let want: Vec<i32> = ((2 - (2).min(2))..2).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_2_push_5() {
        let mut r = Ring::new(2);
        for v in 0..5 { r.push(v) }
        let want: Vec<i32> = ((5 - (2).min(5))..5).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_3_push_3() {
        let mut r = Ring::new(3);
        for v in 0..3 { r.push(v) }
        let want: Vec<i32> = ((3 - (3).min(3))..3).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_3_push_6() {
        let mut r = Ring::new(3);
        for v in 0..6 { r.push(v) }
        let want: Vec<i32> = ((6 - (3).min(6))..6).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_4_push_4() {
        let mut r = Ring::new(4);
        for v in 0..4 { r.push(v) }
        let want: Vec<i32> = ((4 - (4).min(4))..4).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_4_push_7() {
        let mut r = Ring::new(4);
        for v in 0..7 { r.push(v) }
        let want: Vec<i32> = ((7 - (4).min(7))..7).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_5_push_5() {
        let mut r = Ring::new(5);
        for v in 0..5 { r.push(v) }
        let want: Vec<i32> = ((5 - (5).min(5))..5).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_5_push_8() {
        let mut r = Ring::new(5);
        for v in 0..8 { r.push(v) }
        let want: Vec<i32> = ((8 - (5).min(8))..8).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_6_push_6() {
        let mut r = Ring::new(6);
        for v in 0..6 { r.push(v) }
        let want: Vec<i32> = ((6 - (6).min(6))..6).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_6_push_9() {
        let mut r = Ring::new(6);
        for v in 0..9 { r.push(v) }
        let want: Vec<i32> = ((9 - (6).min(9))..9).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_7_push_7() {
        let mut r = Ring::new(7);
        for v in 0..7 { r.push(v) }
        let want: Vec<i32> = ((7 - (7).min(7))..7).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_7_push_10() {
        let mut r = Ring::new(7);
        for v in 0..10 { r.push(v) }
        let want: Vec<i32> = ((10 - (7).min(10))..10).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_8_push_8() {
        let mut r = Ring::new(8);
        for v in 0..8 { r.push(v) }
        let want: Vec<i32> = ((8 - (8).min(8))..8).collect();
        assert_eq!(r.to_vec(), want);
    }

    #[test]
    fn cap_8_push_11() {
        let mut r = Ring::new(8);
        for v in 0..11 { r.push(v) }
        let want: Vec<i32> = ((11 - (8).min(11))..11).collect();
        assert_eq!(r.to_vec(), want);
    }
}
