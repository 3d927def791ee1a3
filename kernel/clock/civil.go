package clock

// Civil dates: the conversions a real-time clock that keeps the date in
// fields (year, month, day, hour: the DS1307 and its kin, Linux's struct
// rtc_time) needs against the Unix time the kernel keeps, in the
// proleptic Gregorian calendar, UTC. The algorithm is Howard Hinnant's
// days_from_civil and civil_from_days ("chrono-Compatible Low-Level Date
// Algorithms"), as Linux's rtc_time64_to_tm and mktime64 compute the
// same; package time cannot serve (its initializers never run in the
// kernel), and the host test checks these against it.

// Civil is a date and time of day, UTC: Month 1-12, Day 1-31, Weekday
// 0 (Sunday) to 6, Yday 0-365.
type Civil struct {
	Year                       int64
	Month, Day, Hour, Min, Sec int
	Weekday, Yday              int
}

// DaysFromCivil is the number of days from 1970-01-01 to y-m-d.
func DaysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400                     // [0, 399]
	mp := (m + 9) % 12                     // March is 0
	doy := int64((153*mp+2)/5 + d - 1)     // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468
}

// ToCivil is Unix time sec as a civil date and time.
func ToCivil(sec int64) Civil {
	days := sec / 86400
	rem := sec % 86400
	if rem < 0 {
		rem += 86400
		days--
	}
	var c Civil
	c.Hour, c.Min, c.Sec = int(rem/3600), int(rem/60%60), int(rem%60)
	c.Weekday = int((days%7 + 11) % 7) // 1970-01-01 was a Thursday
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	c.Day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		c.Month = int(mp + 3)
	} else {
		c.Month = int(mp - 9)
	}
	if c.Month <= 2 {
		y++
	}
	c.Year = y
	c.Yday = int(days - DaysFromCivil(y, 1, 1))
	return c
}

// FromCivil is the Unix time of c (its Weekday and Yday unread).
func FromCivil(c *Civil) int64 {
	return DaysFromCivil(c.Year, c.Month, c.Day)*86400 + int64(c.Hour)*3600 + int64(c.Min)*60 + int64(c.Sec)
}
