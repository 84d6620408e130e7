// A compile-time fingerprint of some types' memory layout: each type's size and alignment, and
// each listed member's offset, size, alignment and declared type. A shared object compiled against
// other definitions of the types gets another number, so a loader can refuse it before it reads or
// writes one of them the wrong way (runtime/types_fingerprint.h, which the component repository
// checks; docs/component-guide.md, "Versions").
//
// A type whose members are all public lists them, in declaration order, and `covers()` proves at
// compile time that the list accounts for every byte that is not the compiler's own padding: a
// member added to the type but not to the list is then a compile error, not a silent gap. A type
// with private members is fingerprinted by size and alignment alone (`opaque_layout_of`).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace prte::util {

struct FieldLayout {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::size_t align = 0;
    std::string_view type;  // the member's declared type, as the compiler spells it
};

template <std::size_t N>
struct TypeLayout {
    std::string_view type;
    std::size_t size = 0;
    std::size_t align = 0;
    bool opaque = false;  // members not listed (private): covers() proves nothing about it
    std::array<FieldLayout, N> fields{};
};

// The compiler's spelling of T: a member whose type changes but keeps its size (int to float,
// vector<int> to vector<long>) still changes the fingerprint. The spelling is the compiler's, so
// a component must be built with the compiler prte was built with (as C++ plug-ins must anyway).
template <typename T>
constexpr std::string_view type_spelling()
{
    return __PRETTY_FUNCTION__;
}

template <typename Member>
constexpr FieldLayout field_layout(std::size_t offset)
{
    return {offset, sizeof(Member), alignof(Member), type_spelling<Member>()};
}

template <typename T, typename... Fields>
constexpr TypeLayout<sizeof...(Fields)> layout_of(Fields... fields)
{
    return {type_spelling<T>(), sizeof(T), alignof(T), false, {fields...}};
}

template <typename T>
constexpr TypeLayout<0> opaque_layout_of()
{
    return {type_spelling<T>(), sizeof(T), alignof(T), true, {}};
}

constexpr std::size_t round_up(std::size_t n, std::size_t align) { return (n + align - 1) / align * align; }

// Whether the fields, in order, tile the type: each starts exactly where the previous one ends,
// rounded up to its own alignment, and the last one ends where the type does (rounded up to the
// type's alignment). A member missing from the list leaves a gap the compiler would not have left.
// (A missing member small enough to sit in padding the listed ones leave is not seen: list every
// member.)
template <std::size_t N>
constexpr bool covers(const TypeLayout<N>& layout)
{
    if (layout.opaque) return true;
    std::size_t end = 0;
    for (const FieldLayout& f : layout.fields) {
        if (f.offset != round_up(end, f.align)) return false;
        end = f.offset + f.size;
    }
    return round_up(end, layout.align) == layout.size;
}

// 64-bit FNV-1a over every number and spelling, in order.
class LayoutHash {
  public:
    constexpr void add(std::uint64_t value)
    {
        for (int i = 0; i < 8; ++i) add_byte(static_cast<unsigned char>(value >> (8 * i)));
    }
    constexpr void add(std::string_view text)
    {
        add(text.size());
        for (char c : text) add_byte(static_cast<unsigned char>(c));
    }
    template <std::size_t N>
    constexpr void add(const TypeLayout<N>& layout)
    {
        add(layout.type);
        add(layout.size);
        add(layout.align);
        add(N);
        for (const FieldLayout& f : layout.fields) {
            add(f.offset);
            add(f.size);
            add(f.align);
            add(f.type);
        }
    }
    constexpr std::uint64_t value() const { return hash_; }

  private:
    constexpr void add_byte(unsigned char byte)
    {
        hash_ ^= byte;
        hash_ *= 0x100000001b3ULL;
    }
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

template <typename... Layouts>
constexpr std::uint64_t layout_fingerprint(const Layouts&... layouts)
{
    LayoutHash hash;
    (hash.add(layouts), ...);
    return hash.value();
}

}  // namespace prte::util

// One member of Type, for layout_of<Type>(...). offsetof on a type that is not standard-layout
// (most of ours: they hold std::string) is conditionally supported; GCC computes it exactly, and
// the header that lists the members silences -Winvalid-offsetof around the list.
#define PRTE_LAYOUT_FIELD(Type, member)                                                              \
    ::prte::util::field_layout<decltype(Type::member)>(offsetof(Type, member))
