-- The cookie-date of RFC 6265 (section 5.1.1): the dates of Expires, in
-- any of the forms servers send, to seconds since the epoch (UTC). Plain
-- Lua 5.1 / LuaJIT; no os.time or os.date (no local time zone involved).
local date = {}

local sub, lower, match, gmatch = string.sub, string.lower, string.match, string.gmatch
local floor, tonumber, type = math.floor, tonumber, type

local MONTHS = {
  jan = 1, feb = 2, mar = 3, apr = 4, may = 5, jun = 6,
  jul = 7, aug = 8, sep = 9, oct = 10, nov = 11, dec = 12,
}
local MONTH_DAYS = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
-- A run of non-delimiters of 5.1.1 (delimiters: tab, 0x20-0x2F, 0x3B-0x40,
-- 0x5B-0x60, 0x7B-0x7E); this is one date-token.
local DATE_TOKEN = "[%z\1-\8\10-\31%d:A-Za-z\127-\255]+"

-- The leading run of digits of tok as a number when it has lo..hi digits
-- (the grammar's "n*mDIGIT ( non-digit *OCTET )"), else nil.
local function lead_digits(tok, lo, hi)
  local d = match(tok, "^%d+")
  if d and #d >= lo and #d <= hi then return tonumber(d) end
  return nil
end

-- hh:mm:ss at the start of tok, each field one or two digits, else nil.
local function hms(tok)
  local h, m, s = match(tok, "^(%d+):(%d+):(%d+)")
  if h and #h <= 2 and #m <= 2 and #s <= 2 then
    return tonumber(h), tonumber(m), tonumber(s)
  end
  return nil
end

-- Days from 1970-01-01 to the given civil date (proleptic Gregorian): the
-- era-based day count, exact for any year, with no os.time (local time zone).
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end
date.days_from_civil = days_from_civil -- volley.convert's HAR dates too

-- Parses a cookie-date (RFC 6265 5.1.1) to seconds since the epoch (UTC), or
-- returns nil when it is not one. Accepts what servers send: RFC 1123
-- ("Wed, 21 Oct 2015 07:28:00 GMT"), RFC 850 ("Sunday, 06-Nov-94 08:49:37
-- GMT"), asctime ("Sun Nov  6 08:49:37 1994") and their variants.
function date.parse(s)
  if type(s) ~= "string" then return nil end
  local hour, min, sec, day, month, year
  for tok in gmatch(s, DATE_TOKEN) do
    -- Each token fills the first still-missing field it matches, in the
    -- order the RFC lists them: time, day of month, month, year.
    local h, mi, se
    if not hour then h, mi, se = hms(tok) end
    if h then
      hour, min, sec = h, mi, se
    else
      local d = not day and lead_digits(tok, 1, 2)
      if d then
        day = d
      else
        local mo = not month and MONTHS[lower(sub(tok, 1, 3))]
        if mo then
          month = mo
        elseif not year then
          year = lead_digits(tok, 2, 4)
        end
      end
    end
  end
  if not (hour and day and month and year) then return nil end
  if year >= 70 and year <= 99 then
    year = year + 1900
  elseif year <= 69 then
    year = year + 2000
  end
  if day < 1 or day > 31 or year < 1601 or hour > 23 or min > 59 or sec > 59 then
    return nil
  end
  local leap = (year % 4 == 0 and year % 100 ~= 0) or year % 400 == 0
  if day > MONTH_DAYS[month] + ((month == 2 and leap) and 1 or 0) then
    return nil  -- 31 Apr, 29 Feb of a common year: no such date
  end
  return days_from_civil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec
end

return date
