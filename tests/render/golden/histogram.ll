; ModuleID = "histogram"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_histogram.body"(i64 %"t", float* %"data", i32* %"bins", i32 %"n") alwaysinline nounwind
{
entry:
  %"i" = alloca i32
  %"idx" = alloca i32
  br label %"body"
body:
  %".6" = trunc i64 %"t" to i32
  store i32 %".6", i32* %"i"
  %"i.1" = load i32, i32* %"i"
  %".8" = sext i32 %"i.1" to i64
  %".9" = getelementptr inbounds float, float* %"data", i64 %".8"
  %".10" = load float, float* %".9", align 4
  %".11" = fmul float %".10", 0x4024000000000000
  %".12" = fptosi float %".11" to i32
  %".13" = fcmp oge float %".11", 0x41e0000000000000
  %".14" = select  i1 %".13", i32 2147483647, i32 %".12"
  %".15" = fcmp olt float %".11", 0xc1e0000000000000
  %".16" = select  i1 %".15", i32 -2147483648, i32 %".14"
  %".17" = fcmp uno float %".11", %".11"
  %".18" = select  i1 %".17", i32 0, i32 %".16"
  store i32 %".18", i32* %"idx"
  %"idx.1" = load i32, i32* %"idx"
  %".20" = sext i32 %"idx.1" to i64
  %".21" = getelementptr inbounds i32, i32* %"bins", i64 %".20"
  %".22" = atomicrmw add i32* %".21", i32 1 monotonic
  ret void
}

define void @"tack_histogram"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to float**
  %"data" = load float*, float** %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to i32**
  %"bins" = load i32*, i32** %".9", align 8
  %".10" = getelementptr i8, i8* %"args", i64 16
  %".11" = bitcast i8* %".10" to i32*
  %"n" = load i32, i32* %".11", align 8
  %".12" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".12", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_histogram.body"(i64 %"t", float* %"data", i32* %"bins", i32 %"n")
  %"t.next" = add i64 %"t", 1
  %".15" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".15", label %"loop", label %"done"
done:
  ret void
}
