; ModuleID = "wrap_u8"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_wrap_u8.body"(i64 %"t", i8* %"a", i32* %"out") alwaysinline nounwind
{
entry:
  %"i" = alloca i64
  %".cse1" = alloca i8
  br label %"body"
body:
  store i64 %"t", i64* %"i"
  %"i.1" = load i64, i64* %"i"
  %".6" = getelementptr inbounds i8, i8* %"a", i64 %"i.1"
  %".7" = load i8, i8* %".6", align 1
  store i8 %".7", i8* %".cse1"
  %".cse1.1" = load i8, i8* %".cse1"
  %".cse1.2" = load i8, i8* %".cse1"
  %".9" = mul i8 %".cse1.1", %".cse1.2"
  %".10" = zext i8 %".9" to i32
  %".11" = add i32 %".10", 200
  %"i.2" = load i64, i64* %"i"
  %".12" = getelementptr inbounds i32, i32* %"out", i64 %"i.2"
  store i32 %".11", i32* %".12", align 4
  ret void
}

define void @"tack_wrap_u8"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to i8**
  %"a" = load i8*, i8** %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to i32**
  %"out" = load i32*, i32** %".9", align 8
  %".10" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".10", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_wrap_u8.body"(i64 %"t", i8* %"a", i32* %"out")
  %"t.next" = add i64 %"t", 1
  %".13" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".13", label %"loop", label %"done"
done:
  ret void
}
