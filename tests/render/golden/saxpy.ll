; ModuleID = "saxpy"
target triple = "x86_64-unknown-linux-gnu"
target datalayout = ""

define internal void @"tack_saxpy.body"(i64 %"t", float %"a", float* %"x", float* %"y", float* %"out") alwaysinline nounwind
{
entry:
  %"i" = alloca i64
  br label %"body"
body:
  store i64 %"t", i64* %"i"
  %"i.1" = load i64, i64* %"i"
  %".8" = getelementptr inbounds float, float* %"x", i64 %"i.1"
  %".9" = load float, float* %".8", align 4
  %"i.2" = load i64, i64* %"i"
  %".10" = getelementptr inbounds float, float* %"y", i64 %"i.2"
  %".11" = load float, float* %".10", align 4
  %".12" = call float @"llvm.fmuladd.f32"(float %"a", float %".9", float %".11")
  %"i.3" = load i64, i64* %"i"
  %".13" = getelementptr inbounds float, float* %"out", i64 %"i.3"
  store float %".12", float* %".13", align 4
  ret void
}

declare float @"llvm.fmuladd.f32"(float %".1", float %".2", float %".3")

define void @"tack_saxpy"(i64 %"t_begin", i64 %"t_end", i8* %"args", i64 %"sig0") nounwind
{
entry:
  %".6" = getelementptr i8, i8* %"args", i64 0
  %".7" = bitcast i8* %".6" to float*
  %"a" = load float, float* %".7", align 8
  %".8" = getelementptr i8, i8* %"args", i64 8
  %".9" = bitcast i8* %".8" to float**
  %"x" = load float*, float** %".9", align 8
  %".10" = getelementptr i8, i8* %"args", i64 16
  %".11" = bitcast i8* %".10" to float**
  %"y" = load float*, float** %".11", align 8
  %".12" = getelementptr i8, i8* %"args", i64 24
  %".13" = bitcast i8* %".12" to float**
  %"out" = load float*, float** %".13", align 8
  %".14" = icmp slt i64 %"t_begin", %"t_end"
  br i1 %".14", label %"loop", label %"done"
loop:
  %"t" = phi  i64 [%"t_begin", %"entry"], [%"t.next", %"loop"]
  call void @"tack_saxpy.body"(i64 %"t", float %"a", float* %"x", float* %"y", float* %"out")
  %"t.next" = add i64 %"t", 1
  %".17" = icmp slt i64 %"t.next", %"t_end"
  br i1 %".17", label %"loop", label %"done"
done:
  ret void
}
