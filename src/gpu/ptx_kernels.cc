#include "gpu/ptx_kernels.h"

namespace ys::gpu {

// Hand-written PTX, kept small. Registers are declared per entry; branch labels are local to
// their entry. Loads of the copy are not .nc so that the same kernel may read mapped host memory
// and peer memory.
const char* BenchKernelsPtx() {
  return R"PTX(
.version 7.0
.target sm_80
.address_size 64

.visible .entry ys_copy16(
    .param .u64 ys_copy16_dst,
    .param .u64 ys_copy16_src,
    .param .u64 ys_copy16_count)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<9>;
    .reg .b64   %rd<10>;

    ld.param.u64        %rd1, [ys_copy16_dst];
    ld.param.u64        %rd2, [ys_copy16_src];
    ld.param.u64        %rd3, [ys_copy16_count];
    cvta.to.global.u64  %rd1, %rd1;
    cvta.to.global.u64  %rd2, %rd2;
    mov.u32             %r1, %ctaid.x;
    mov.u32             %r2, %ntid.x;
    mov.u32             %r3, %tid.x;
    mov.u32             %r4, %nctaid.x;
    mul.wide.u32        %rd4, %r1, %r2;
    cvt.u64.u32         %rd5, %r3;
    add.u64             %rd4, %rd4, %rd5;
    mul.wide.u32        %rd6, %r4, %r2;
    setp.ge.u64         %p1, %rd4, %rd3;
    @%p1 bra            COPY_DONE;
COPY_LOOP:
    shl.b64             %rd7, %rd4, 4;
    add.u64             %rd8, %rd2, %rd7;
    ld.global.v4.u32    {%r5, %r6, %r7, %r8}, [%rd8];
    add.u64             %rd9, %rd1, %rd7;
    st.global.v4.u32    [%rd9], {%r5, %r6, %r7, %r8};
    add.u64             %rd4, %rd4, %rd6;
    setp.lt.u64         %p1, %rd4, %rd3;
    @%p1 bra            COPY_LOOP;
COPY_DONE:
    ret;
}

.visible .entry ys_spin_wait(
    .param .u64 ys_spin_wait_flag,
    .param .u64 ys_spin_wait_timeout_ns)
{
    .reg .pred  %p<3>;
    .reg .b32   %r<2>;
    .reg .b64   %rd<6>;

    ld.param.u64        %rd1, [ys_spin_wait_flag];
    ld.param.u64        %rd2, [ys_spin_wait_timeout_ns];
    cvta.to.global.u64  %rd1, %rd1;
    mov.u64             %rd3, %globaltimer;
SPIN_LOOP:
    ld.volatile.global.u32 %r1, [%rd1];
    setp.ne.u32         %p1, %r1, 0;
    @%p1 bra            SPIN_DONE;
    mov.u64             %rd4, %globaltimer;
    sub.u64             %rd5, %rd4, %rd3;
    setp.lt.u64         %p2, %rd5, %rd2;
    @%p2 bra            SPIN_LOOP;
SPIN_DONE:
    ret;
}

.visible .entry ys_empty()
{
    ret;
}
)PTX";
}

}  // namespace ys::gpu
