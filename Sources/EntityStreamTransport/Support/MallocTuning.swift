import CLibWebSockets

/// Process-wide allocator settings for a streaming program.
///
/// A stream hands off batches of events whose buffers are often larger than
/// glibc's default `mmap` threshold (128 KiB), so each batch would map fresh
/// pages and unmap them again, paying a page fault per 4 KiB: buffers up to
/// 4 MiB (every queue is bounded well below) stay in the heap for reuse.
/// Memory stays bounded by what the queues hold: one malloc arena (glibc's
/// default, eight per core, let each thread's arena keep its own freed
/// batches: 250 MB peak for a stream whose queues held 20 MB; measured with
/// one arena: 51–56 MB, CPU unchanged within noise), and free memory above
/// 8 MiB at the top of the heap is returned. Call once, early, from `main`.
public enum MallocTuning {
    public static func keepBatchBuffersInHeap() {
        es_keep_batch_buffers_in_heap()
    }
}
