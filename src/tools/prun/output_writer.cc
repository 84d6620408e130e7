#include "tools/prun/output_writer.h"

#include <poll.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include <fmt/format.h>

namespace prte::prun {
namespace {

std::string now_text()
{
    struct timeval tv {};
    gettimeofday(&tv, nullptr);
    struct tm local {};
    time_t seconds = tv.tv_sec;
    localtime_r(&seconds, &local);
    char text[32];
    strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
    return fmt::format("{}.{:06d}", text, static_cast<int>(tv.tv_usec));
}

}  // namespace

bool write_all(int fd, std::string_view data)
{
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n > 0) {
            data.remove_prefix(static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};
            poll(&p, 1, 1000);
            continue;
        }
        return false;  // EPIPE (the reader is gone), or the stream is unusable: stop writing to it
    }
    return true;
}

namespace {
// Whether each line (or raw chunk) gets a label: a tag, the rank, a timestamp, or an XML element.
bool labelled(const OutputOptions& o) { return o.tag || o.rank || o.timestamp || o.xml; }
}  // namespace

std::string job_label_of(const std::string& nspace)
{
    size_t at = nspace.rfind('@');
    if (at == std::string::npos || at + 1 >= nspace.size()) return nspace;
    return nspace.substr(at + 1);
}

OutputWriter::OutputWriter(OutputOptions options, int out_fd, int err_fd)
    : options_(options), out_fd_(out_fd), err_fd_(err_fd), clock_(now_text),
      line_mode_(labelled(options) && !options.raw), files_(options.files)
{
}

void OutputWriter::set_job_label(std::string label)
{
    std::lock_guard<std::mutex> lock(mutex_);
    job_label_ = std::move(label);
}

void OutputWriter::set_clock(std::function<std::string()> clock)
{
    std::lock_guard<std::mutex> lock(mutex_);
    clock_ = std::move(clock);
}

const ProcPlace* OutputWriter::place_of(const std::string& job, uint32_t rank) const
{
    auto it = places_.find({job, rank});
    return it == places_.end() ? nullptr : &it->second;
}

std::string OutputWriter::prefix(const std::string& job, uint32_t rank, Stream stream) const
{
    std::string text;
    if (options_.timestamp) text = "[" + clock_() + "] ";
    if (options_.tag) {
        text += fmt::format("[{},{}]", job.empty() ? job_label_ : job, rank);
        if (options_.tag_detailed) {
            const ProcPlace* place = place_of(job, rank);
            text += place ? fmt::format("[{}:{}]", place->host.empty() ? "unknown" : place->host,
                                        place->pid > 0 ? std::to_string(place->pid) : "unknown")
                          : "[unknown:unknown]";
        }
        text += fmt::format("<{}>: ", stream == Stream::out ? "stdout" : "stderr");
    } else if (options_.rank) {
        // PMIx's rank-only tag: the rank and the stream, no job.
        text += fmt::format("[{}]<{}>: ", rank, stream == Stream::out ? "stdout" : "stderr");
    }
    return text;
}

std::string OutputWriter::xml_element(const std::string& job, uint32_t rank, Stream stream, std::string_view text) const
{
    const char* name = stream == Stream::out ? "stdout" : "stderr";
    std::string open = fmt::format("<{}", name);
    if (options_.tag) {
        open += fmt::format(" {}=\"{}\"", options_.tag_fullname ? "nspace" : "jobid", xml_escape(job.empty() ? job_label_ : job, true));
    }
    open += fmt::format(" rank=\"{}\"", rank);
    if (options_.tag_detailed) {
        const ProcPlace* place = place_of(job, rank);
        open += fmt::format(" host=\"{}\" pid=\"{}\"", place && !place->host.empty() ? xml_escape(place->host, true) : "unknown",
                            place && place->pid > 0 ? std::to_string(place->pid) : "unknown");
    }
    if (options_.timestamp) open += fmt::format(" timestamp=\"{}\"", clock_());
    return fmt::format("{}>{}</{}>\n", open, xml_escape(text), name);
}

std::string OutputWriter::render(const std::string& job, uint32_t rank, Stream stream, std::string_view text) const
{
    if (options_.xml) return xml_element(job, rank, stream, text);
    return prefix(job, rank, stream) + std::string(text);
}

void OutputWriter::begin_document()
{
    if (!options_.xml) return;
    std::lock_guard<std::mutex> lock(mutex_);
    write_to(Stream::out, "<mpirun>\n");
}

void OutputWriter::end_document()
{
    if (!options_.xml) return;
    std::lock_guard<std::mutex> lock(mutex_);
    write_to(Stream::out, "</mpirun>\n");
}

bool OutputWriter::write_to(Stream target, std::string_view data)
{
    std::atomic<bool>& broken = target == Stream::out ? out_broken_ : err_broken_;
    if (broken.load()) return false;
    if (!write_all(target == Stream::out ? out_fd_ : err_fd_, data)) {
        broken.store(true);
        return false;
    }
    return true;
}

void OutputWriter::deliver(uint32_t rank, Stream stream, std::string_view data, const std::string& job,
                           const ProcPlace* place)
{
    if (data.empty()) return;
    Stream target = options_.merge_stderr ? Stream::out : stream;
    std::lock_guard<std::mutex> lock(mutex_);
    if (place) places_[{job, rank}] = *place;
    if (files_.active()) {
        // The process's own bytes, untagged, as PRRTE writes them.
        files_.write(job.empty() ? job_label_ : job, rank, target == Stream::out, data);
        if (!files_.copy()) return;
    }
    if (!line_mode_) {
        if (labelled(options_)) {  // raw, but still labelled per chunk
            write_to(target, render(job, rank, stream, data));
        } else {
            write_to(target, data);
        }
        return;
    }
    std::string& pending = partial_[{job, rank, static_cast<int>(stream)}];
    std::string out;
    size_t start = 0;
    while (start < data.size()) {
        size_t newline = data.find('\n', start);
        if (newline == std::string_view::npos) {
            pending.append(data.substr(start));
            break;
        }
        pending.append(data.substr(start, newline + 1 - start));
        out += render(job, rank, stream, pending);
        pending.clear();
        start = newline + 1;
    }
    if (!out.empty()) write_to(target, out);
}

void OutputWriter::deliver_unformatted(std::string_view data, Stream stream)
{
    std::lock_guard<std::mutex> lock(mutex_);
    write_to(stream, data);
}

void OutputWriter::flush()
{
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [source, pending] : partial_) {
        if (pending.empty()) continue;
        const auto& [job, rank, channel] = source;
        Stream stream = static_cast<Stream>(channel);
        // An unfinished last line: ended here (an XML element needs no newline of its own).
        write_to(options_.merge_stderr ? Stream::out : stream,
                 render(job, rank, stream, options_.xml ? pending : pending + "\n"));
        pending.clear();
    }
}

}  // namespace prte::prun
