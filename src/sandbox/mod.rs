pub fn run_cli(_a:&[String])->i32{0}
