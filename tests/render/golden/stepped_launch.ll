; ModuleID = "stepped_launch"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_stepped_launch.body"(i64 %"t", i64* %"out", i32 %"start", i32 %"stop", i64 %".start") alwaysinline nounwind
{
entry:
  %"i" = alloca i32
  br label %"body"
body:
  %".7" = mul i64 %"t", 3
  %".8" = add i64 %".start", %".7"
  %".9" = trunc i64 %".8" to i32
  store i32 %".9", i32* %"i"
  %"i.1" = load i32, i32* %"i"
  %".11" = mul i32 %"i.1", 2
  %".12" = add i32 %".11", 1
  %".13" = sext i32 %".12" to i64
  %"i.2" = load i32, i32* %"i"
  %".14" = sext i32 %"i.2" to i64
  %".15" = getelementptr inbounds i64, i64* %"out", i64 %".14"
  store i64 %".13", i64* %".15", align 8
  ret void
}

define void @"tack_stepped_launch"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to i64**
  %"out" = load i64*, i64** %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to i32*
  %"start" = load i32, i32* %".9", align 8
  %".10" = getelementptr i8, i8* %"args", i64 16
  %".11" = bitcast i8* %".10" to i32*
  %"stop" = load i32, i32* %".11", align 8
  %".12" = getelementptr i8, i8* %"args", i64 24
  %".13" = bitcast i8* %".12" to i64*
  %".start" = load i64, i64* %".13", align 8
  %".14" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".14", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_stepped_launch.body"(i64 %"t", i64* %"out", i32 %"start", i32 %"stop", i64 %".start")
  %"t.next" = add i64 %"t", 1
  %".17" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".17", label %"loop", label %"done"
done:
  ret void
}
